/// The category an on-device classifier gave an email. An open set compared case-insensitively
/// ("Promotions" and "promotions" are one category).
public struct AICategory: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

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

    public static let primary: AICategory = "primary"
    public static let social: AICategory = "social"
    public static let promotions: AICategory = "promotions"
    public static let updates: AICategory = "updates"
    /// The classifier has not run yet; such emails always pass the category filter.
    public static let uncategorized: AICategory = "uncategorized"
}
