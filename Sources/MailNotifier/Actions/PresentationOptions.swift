/// How a banner arriving while the app is in front is shown (NOTIF-06f).
public struct PresentationOptions: OptionSet, Hashable, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let banner = PresentationOptions(rawValue: 1 << 0)
    public static let badge = PresentationOptions(rawValue: 1 << 1)
    public static let sound = PresentationOptions(rawValue: 1 << 2)

    /// Banner, badge and sound, unless the user is already reading that thread: then only the badge
    /// changes.
    public static func forForeground(_ userInfo: [String: String], viewingThread: ThreadID?) -> PresentationOptions {
        guard let viewingThread, userInfo[NotificationUserInfo.Key.threadId] == viewingThread.rawValue else {
            return [.banner, .badge, .sound]
        }
        return .badge
    }
}
