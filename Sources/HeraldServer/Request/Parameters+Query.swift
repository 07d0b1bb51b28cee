import Foundation
import HeraldCore
import Hummingbird

/// Query-string filters of the listings, each checked and named when wrong.
extension Parameters {
    /// Refuses a parameter the listing does not know, so a misspelt filter is not silently ignored.
    func allowOnly(_ allowed: Set<String>) throws(APIError) {
        for (name, _) in self where !allowed.contains(String(name)) {
            throw .validation("is not a filter of this listing", field: String(name))
        }
    }

    func externalID(_ name: String) throws(APIError) -> ExternalID? {
        guard let text = get(name) else { return nil }
        guard let id = ExternalID(text) else { throw JSONObject.badID(name) }
        return id
    }

    func uuid(_ name: String) throws(APIError) -> UUID? {
        guard let text = get(name) else { return nil }
        guard let id = UUID(uuidString: text) else { throw .validation("must be a UUID", field: name) }
        return id
    }

    func text(_ name: String, maximum: Int) throws(APIError) -> String? {
        guard let text = get(name) else { return nil }
        guard (1...maximum).contains(text.codePointCount) else {
            throw .validation("must be 1 to \(maximum) characters", field: name)
        }
        return text
    }

    func date(_ name: String) throws(APIError) -> Date? {
        guard let text = get(name) else { return nil }
        guard let date = RFC3339Timestamp.parse(text) else {
            throw .validation("must be an RFC 3339 date-time", field: name)
        }
        return date
    }

    func tag(_ name: String) throws(APIError) -> NotificationTag? {
        guard let text = get(name) else { return nil }
        guard let tag = NotificationTag(text) else {
            throw .validation("must be 1 to 64 printable characters", field: name)
        }
        return tag
    }

    /// `limit`: how many items a page holds.
    func pageLimit(default defaultLimit: Int, maximum: Int) throws(APIError) -> Int {
        guard let text = get("limit") else { return defaultLimit }
        guard let limit = Int(text), (1...maximum).contains(limit) else {
            throw .validation("must be an integer from 1 to \(maximum)", field: "limit")
        }
        return limit
    }

    /// `cursor`: the `nextCursor` of an earlier page.
    func pageCursor() throws(APIError) -> (time: Date, id: UUID)? {
        guard let text = get("cursor") else { return nil }
        guard let cursor = PageCursorText.parse(text) else {
            throw .validation("must be a nextCursor from an earlier page", field: "cursor")
        }
        return cursor
    }
}
