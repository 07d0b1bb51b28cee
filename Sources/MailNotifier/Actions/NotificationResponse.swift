/// A user's response to a banner, as the device reports it back.
public struct NotificationResponse: Hashable, Sendable {
    public var action: NotificationAction
    /// The banner's custom data (see ``NotificationUserInfo``).
    public var userInfo: [String: String]
    /// The text typed into the reply field, for ``NotificationAction/reply``.
    public var replyText: String?

    public init(action: NotificationAction, userInfo: [String: String], replyText: String? = nil) {
        self.action = action
        self.userInfo = userInfo
        self.replyText = replyText
    }
}
