import Foundation
import Hummingbird

/// A page of a listing; `nextCursor` is null on the last page.
struct PageResponse<Item: Encodable & Sendable>: ResponseEncodable {
    var items: [Item]
    var nextCursor: String?

    /// A page of `fetched`, which holds up to one row more than `limit` (the extra row tells that another page
    /// follows); `cursor` names the position of the page's last row.
    init<Row>(_ fetched: [Row], limit: Int, item: (Row) -> Item, cursor: (Row) -> (time: Date, id: UUID)) {
        let page = fetched.prefix(limit)
        items = page.map(item)
        nextCursor = fetched.count > limit ? page.last.map(cursor).map { PageCursorText.make($0.time, $0.id) } : nil
    }

    private enum CodingKeys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        // Written even when nil: clients test for null, not for a missing key.
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
