/// A label the backend puts on a direct send (a laundry machine, a kind of timer), so that what is scheduled under
/// it can be listed and canceled together: 1 to 64 printable characters on one line.
public struct NotificationTag: Hashable, Sendable, Comparable {
    /// How many tags one notification may carry.
    public static let maximumCount = 16

    public let rawValue: String

    /// The tag, or `nil` when `text` is empty, longer than 64 characters or holds a control character.
    public init?(_ text: String) {
        guard (1...64).contains(text.codePointCount), !text.containsControlOrLineBreak else { return nil }
        rawValue = text
    }

    public static func < (lhs: NotificationTag, rhs: NotificationTag) -> Bool { lhs.rawValue < rhs.rawValue }
}
