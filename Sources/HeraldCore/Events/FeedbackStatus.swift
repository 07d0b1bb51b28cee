/// A feedback status as the backend names it (`in_progress`), with the form people read ("In Progress").
public struct FeedbackStatus: Sendable, Hashable, Codable {
    public let rawValue: String

    /// The status, or `nil` unless `text` is 1 to 50 of `a-z 0-9 _` starting with a letter.
    public init?(_ text: String) {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            text.utf8.count <= 50,
            text.utf8.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
            })
        else { return nil }
        rawValue = text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let status = FeedbackStatus(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a status"))
        }
        self = status
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// "In Progress" for `in_progress`: words capitalised, with the product spellings of the known statuses.
    public var displayName: String {
        if let known = Self.knownNames[rawValue] { return known }
        return rawValue.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    private static let knownNames = ["testflight": "TestFlight"]
}
