/// The category an on-device classifier gave an email. An open set compared case-insensitively
/// ("Promotions" and "promotions" are one category).
public struct AICategory: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue.lowercased()
    }

    public static let primary: AICategory = "primary"
    public static let social: AICategory = "social"
    public static let promotions: AICategory = "promotions"
    public static let updates: AICategory = "updates"
    /// The classifier has not run yet; such emails always pass the category filter.
    public static let uncategorized: AICategory = "uncategorized"
}
