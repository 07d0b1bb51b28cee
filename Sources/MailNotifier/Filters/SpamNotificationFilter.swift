/// Suppresses emails flagged as spam (NOTIF-12).
public struct SpamNotificationFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .spam }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        !email.isSpam
    }
}
