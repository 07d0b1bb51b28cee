/// An `apns-collapse-id`: at most 64 bytes of UTF-8, checked before sending.
public struct CollapseID: Hashable, Sendable, CustomStringConvertible {
    public static let maximumLength = 64
    public let value: String

    /// - Returns: nil when `value` is empty or longer than 64 bytes.
    public init?(_ value: String) {
        guard !value.isEmpty, value.utf8.count <= Self.maximumLength else { return nil }
        self.value = value
    }

    public var description: String { value }
}

extension CollapseID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let id = CollapseID(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a collapse id is 1 to 64 bytes")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
