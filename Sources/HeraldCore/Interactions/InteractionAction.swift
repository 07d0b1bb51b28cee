/// What a person did with a delivered push, as the app reports `UNNotificationResponse.actionIdentifier`: Apple's
/// default and dismiss identifiers are recorded as `opened` and `dismissed`, the app's own identifiers as given.
public struct InteractionAction: Sendable, Hashable, CustomStringConvertible {
    /// The banner was tapped and the app opened.
    public static let opened = InteractionAction(recorded: "opened")
    /// The banner was dismissed (with the category's `customDismissAction` option).
    public static let dismissed = InteractionAction(recorded: "dismissed")
    /// The longest identifier recorded, in code points.
    public static let maximumLength = 64

    static let appleDefault = "com.apple.UNNotificationDefaultActionIdentifier"
    static let appleDismiss = "com.apple.UNNotificationDismissActionIdentifier"

    /// The action as recorded and listed.
    public let rawValue: String

    /// Reads an identifier as the app reports it.
    /// - Returns: nil when it is empty, longer than ``maximumLength`` or holds a control character or line break.
    public init?(identifier: String) {
        switch identifier {
        case Self.appleDefault: self = .opened
        case Self.appleDismiss: self = .dismissed
        default:
            guard (1...Self.maximumLength).contains(identifier.codePointCount), !identifier.containsControlOrLineBreak
            else { return nil }
            rawValue = identifier
        }
    }

    /// An action a listing filters on: Apple's identifiers as ``init(identifier:)`` reads them, any other text of 1 to
    /// ``maximumLength`` code points as it is (text no app could report simply matches nothing).
    public init?(filter text: String) {
        guard (1...Self.maximumLength).contains(text.codePointCount) else { return nil }
        self = InteractionAction(identifier: text) ?? InteractionAction(recorded: text)
    }

    /// An action read back from the database, which checked it when it was recorded.
    init(recorded: String) { rawValue = recorded }

    public var description: String { rawValue }
}
