import Foundation
import HeraldCore
import Hummingbird

/// `GET /api/v1/logs`'s query: filters, page size and cursor, each checked and named when wrong.
struct LogQuery {
    static let defaultLimit = 50
    static let maximumLimit = 500
    static let allowed: Set<String> = [
        "userId", "deviceId", "projectId", "notificationId", "type", "status", "reason", "since", "until", "limit",
        "cursor", "appId",
    ]

    var filter = DeliveryLogFilter()
    var limit = defaultLimit
    var cursor: DeliveryLogCursor?

    static func parse(_ parameters: Parameters) throws(APIError) -> LogQuery {
        try parameters.allowOnly(allowed)
        var query = LogQuery()
        query.filter.userID = try parameters.externalID("userId")?.rawValue
        query.filter.deviceID = try parameters.uuid("deviceId")
        query.filter.projectID = try parameters.externalID("projectId")?.rawValue
        query.filter.appID = try parameters.externalID("appId")?.rawValue
        query.filter.notificationID = try parameters.uuid("notificationId")
        query.filter.type = try parameters.text("type", maximum: 50)
        if let status = parameters.get("status") {
            guard let parsed = DeliveryLogStatus(rawValue: status) else {
                let names = DeliveryLogStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw .validation("must be one of \(names)", field: "status")
            }
            query.filter.status = parsed
        }
        query.filter.reason = try parameters.text("reason", maximum: 100)
        query.filter.since = try parameters.date("since")
        query.filter.until = try parameters.date("until")
        query.limit = try parameters.pageLimit(default: defaultLimit, maximum: maximumLimit)
        query.cursor = try parameters.pageCursor().map { DeliveryLogCursor(createdAt: $0.time, id: $0.id) }
        return query
    }
}
