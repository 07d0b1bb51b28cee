/// An APNs device token as registered: lowercase hex, even length, 16 to 256 bytes.
///
/// The token is secret-ish: `description` never shows it, so it cannot leak into logs or error messages.
public struct PushToken: Hashable, Sendable, CustomStringConvertible {
    /// The lowercase hex form stored in the database.
    public let hex: String

    /// The token, or `nil` when `text` is not 32 to 512 hex digits of even length.
    public init?(_ text: String) {
        let count = text.utf8.count
        guard (32...512).contains(count), count % 2 == 0, text.utf8.allSatisfy(\.isHexDigit) else { return nil }
        hex = text.lowercased()
    }

    public var description: String { "PushToken(\(hex.utf8.count / 2) bytes)" }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
