/// A position in the interactions' order (Migrations/0043): a reader passes the last one it got to read on from
/// there.
public struct InteractionCursor: Sendable, Hashable, CustomStringConvertible {
    /// Before every interaction.
    public static let start = InteractionCursor(position: 0)

    public var position: Int64

    public init(position: Int64) { self.position = position }

    /// - Returns: nil unless `text` is a position written by ``description``: up to 19 digits.
    public init?(_ text: String) {
        guard (1...19).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let position = Int64(text)
        else { return nil }
        self.init(position: position)
    }

    public var description: String { String(position) }
}
