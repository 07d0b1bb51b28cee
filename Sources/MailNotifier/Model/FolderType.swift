/// The role of a mail folder. An open set: providers invent folder kinds, so unknown values are kept
/// (lowercased) rather than rejected.
public struct FolderType: StringIdentifier {
    public let rawValue: String

    /// Folder types compare case-insensitively, so the raw value is stored lowercased.
    public init(rawValue: String) {
        self.rawValue = rawValue.lowercased()
    }

    public static let inbox: FolderType = "inbox"
    public static let sent: FolderType = "sent"
    public static let drafts: FolderType = "drafts"
    public static let trash: FolderType = "trash"
    public static let spam: FolderType = "spam"
    public static let archive: FolderType = "archive"
    public static let starred: FolderType = "starred"
    public static let custom: FolderType = "custom"
}
