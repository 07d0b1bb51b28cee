/// Suppresses emails in threads the user muted (NOTIF-11).
public struct MutedThreadFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .mutedThread }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        !context.settings.isMuted(email.threadId)
    }
}
