/// A banner for one email, as any notification center (Herald here) receives it.
public struct NotificationContent: Hashable, Sendable {
    /// The category every email banner uses, whose actions are Mark Read, Archive, Delete and Reply.
    public static let emailCategory = "EMAIL_NOTIFICATION"
    /// The system's default sound; custom sounds are out of scope (NG-03).
    public static let defaultSound = "default"

    public var identifier: NotificationRequestID
    public var title: String
    public var subtitle: String
    public var body: String
    public var sound: String
    public var categoryIdentifier: String
    /// Groups banners of one thread together across all accounts (NOTIF-05).
    public var threadIdentifier: ThreadID
    public var userInfo: NotificationUserInfo

    public init(
        identifier: NotificationRequestID, title: String, subtitle: String, body: String,
        sound: String = NotificationContent.defaultSound,
        categoryIdentifier: String = NotificationContent.emailCategory,
        threadIdentifier: ThreadID, userInfo: NotificationUserInfo
    ) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.userInfo = userInfo
    }
}
