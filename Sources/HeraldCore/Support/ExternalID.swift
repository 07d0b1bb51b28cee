/// An id the backend chose for one of its users or projects: 1 to 128 of `A-Z a-z 0-9 . _ : @ -`.
///
/// Herald keys its rows by UUID and speaks these ids at its API, so a value of this type has always been checked.
public struct ExternalID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The id, or `nil` when `text` is empty, too long or has a character outside the allowed set.
    public init?(_ text: String) {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy(Self.isAllowed) else { return nil }
        rawValue = text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ExternalID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
