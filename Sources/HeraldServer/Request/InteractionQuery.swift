import HeraldCore
import Hummingbird

/// `GET /api/v1/interactions`'s query: filters, page size and the cursor to read on from.
struct InteractionQuery {
    static let defaultLimit = 100
    static let allowed: Set<String> = ["since", "notificationId", "userId", "action", "type", "appId", "limit"]

    var filter = InteractionFilter()
    var since = InteractionCursor.start
    var limit = defaultLimit

    static func parse(_ parameters: Parameters) throws(APIError) -> InteractionQuery {
        try parameters.allowOnly(allowed)
        var query = InteractionQuery()
        if let text = parameters.get("since") {
            guard let cursor = InteractionCursor(text) else {
                throw .validation("must be a nextCursor from an earlier listing", field: "since")
            }
            query.since = cursor
        }
        query.filter.notificationID = try parameters.uuid("notificationId")
        query.filter.userID = try parameters.externalID("userId")?.rawValue
        if let text = parameters.get("action") {
            guard let action = InteractionAction(filter: text) else {
                throw .validation("must be an action identifier of 1 to 64 characters", field: "action")
            }
            query.filter.action = action
        }
        query.filter.type = try parameters.text("type", maximum: 50)
        query.filter.appID = try parameters.externalID("appId")?.rawValue
        query.limit = try parameters.pageLimit(default: defaultLimit, maximum: InteractionStore.maximumLimit)
        return query
    }
}
