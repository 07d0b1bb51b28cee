/// The role of a mail folder. An open set: providers invent folder kinds, so unknown values are kept
/// (lowercased) rather than rejected.
public struct FolderType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Folder types compare case-insensitively, so the raw value is stored lowercased.
    public init(rawValue: String) {
        self.rawValue = rawValue.lowercased()
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static let inbox: FolderType = "inbox"
    public static let sent: FolderType = "sent"
    public static let drafts: FolderType = "drafts"
    public static let trash: FolderType = "trash"
    public static let spam: FolderType = "spam"
    public static let archive: FolderType = "archive"
    public static let starred: FolderType = "starred"
    public static let custom: FolderType = "custom"
}
