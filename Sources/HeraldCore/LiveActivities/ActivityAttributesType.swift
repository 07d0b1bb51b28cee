/// The Swift name of an app's `ActivityAttributes` type (`DeliveryAttributes`), which APNs reads from
/// `attributes-type` to know which Live Activity a push starts, and under which a device's push-to-start token
/// is kept: a letter or `_`, then up to 127 of `A-Z a-z 0-9 _ .`.
public struct ActivityAttributesType: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The name, or `nil` when `text` is no Swift type name.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard (1...128).contains(bytes.count), let first = bytes.first,
            Self.isLetter(first) || first == UInt8(ascii: "_"),
            bytes.allSatisfy({
                Self.isLetter($0) || Self.isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        rawValue = text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let type = ActivityAttributesType(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an attributes type name"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
