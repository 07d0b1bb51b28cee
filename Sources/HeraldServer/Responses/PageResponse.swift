import Hummingbird

/// A page of a listing; `nextCursor` is null on the last page.
struct PageResponse<Item: Encodable & Sendable>: ResponseEncodable {
    var items: [Item]
    var nextCursor: String?

    private enum CodingKeys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        // Written even when nil: clients test for null, not for a missing key.
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
