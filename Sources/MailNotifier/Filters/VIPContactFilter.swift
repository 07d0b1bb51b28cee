/// Recognises emails from VIP contacts (NOTIF-10). The pipeline runs it first as an override: a VIP's
/// email notifies whatever the other filters say, spam and muted threads included, because the user
/// named that sender explicitly.
public struct VIPContactFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .vip }

    /// `true` when the sender's address, compared case-insensitively, is a VIP contact.
    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        context.settings.isVIP(email.fromAddress)
    }
}
