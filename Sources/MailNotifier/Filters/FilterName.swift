/// The name a filter is reported under when it suppresses an email. An open set, so callers may add
/// their own filters.
public struct FilterName: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let vip: FilterName = "vip"
    public static let account: FilterName = "account"
    public static let spam: FilterName = "spam"
    public static let folderType: FilterName = "folder-type"
    public static let mutedThread: FilterName = "muted-thread"
    public static let category: FilterName = "category"
    public static let quietHours: FilterName = "quiet-hours"
    public static let focusMode: FilterName = "focus-mode"
}
