/// Suppresses emails of accounts whose notifications are switched off (NOTIF-08); accounts are on
/// until switched off.
public struct AccountNotificationFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .account }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        context.settings.notificationsEnabled(for: email.accountId)
    }
}
