import Foundation
import HeraldCore
import Hummingbird

/// `GET /api/v1/notifications`'s query: what is scheduled, filtered and paged soonest first.
struct ScheduledQuery {
    static let defaultLimit = 50
    static let maximumLimit = 500

    var filter = ScheduledFilter()
    var limit = defaultLimit
    var cursor: ScheduledCursor?

    static func parse(_ parameters: Parameters) throws(APIError) -> ScheduledQuery {
        try parameters.allowOnly(["state", "userId", "tag", "sendBefore", "limit", "cursor"])
        // Only what waits is listed here; what was sent is in /api/v1/logs.
        if let state = parameters.get("state"), state != "scheduled" {
            throw .validation("must be scheduled; sent notifications are in /api/v1/logs", field: "state")
        }
        var query = ScheduledQuery()
        query.filter.user = try parameters.externalID("userId")
        query.filter.tag = try parameters.tag("tag")
        query.filter.sendBefore = try parameters.date("sendBefore")
        query.limit = try parameters.pageLimit(default: defaultLimit, maximum: maximumLimit)
        query.cursor = try parameters.pageCursor().map { ScheduledCursor(sendAt: $0.time, id: $0.id) }
        return query
    }
}
