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
        for (name, _) in parameters where !allowed.contains(String(name)) {
            throw .validation("is not a filter of this listing", field: String(name))
        }
        var query = LogQuery()
        query.filter.userID = try externalID(parameters, "userId")
        query.filter.deviceID = try uuid(parameters, "deviceId")
        query.filter.projectID = try externalID(parameters, "projectId")
        query.filter.appID = try externalID(parameters, "appId")
        query.filter.notificationID = try uuid(parameters, "notificationId")
        query.filter.type = try text(parameters, "type", maximum: 50)
        if let status = parameters.get("status") {
            guard let parsed = DeliveryLogStatus(rawValue: status) else {
                let names = DeliveryLogStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw .validation("must be one of \(names)", field: "status")
            }
            query.filter.status = parsed
        }
        query.filter.reason = try text(parameters, "reason", maximum: 100)
        query.filter.since = try date(parameters, "since")
        query.filter.until = try date(parameters, "until")
        if let limit = parameters.get("limit") {
            guard let parsed = Int(limit), (1...maximumLimit).contains(parsed) else {
                throw .validation("must be an integer from 1 to \(maximumLimit)", field: "limit")
            }
            query.limit = parsed
        }
        if let cursor = parameters.get("cursor") {
            guard let parsed = LogCursorText.parse(cursor) else {
                throw .validation("must be a nextCursor from an earlier page", field: "cursor")
            }
            query.cursor = parsed
        }
        return query
    }

    private static func externalID(_ parameters: Parameters, _ name: String) throws(APIError) -> String? {
        guard let text = parameters.get(name) else { return nil }
        guard let id = ExternalID(text) else { throw JSONObject.badID(name) }
        return id.rawValue
    }

    private static func uuid(_ parameters: Parameters, _ name: String) throws(APIError) -> UUID? {
        guard let text = parameters.get(name) else { return nil }
        guard let id = UUID(uuidString: text) else { throw .validation("must be a UUID", field: name) }
        return id
    }

    private static func text(_ parameters: Parameters, _ name: String, maximum: Int) throws(APIError) -> String? {
        guard let text = parameters.get(name) else { return nil }
        guard (1...maximum).contains(text.codePointCount) else {
            throw .validation("must be 1 to \(maximum) characters", field: name)
        }
        return text
    }

    private static func date(_ parameters: Parameters, _ name: String) throws(APIError) -> Date? {
        guard let text = parameters.get(name) else { return nil }
        guard let date = RFC3339Timestamp.parse(text) else {
            throw .validation("must be an RFC 3339 date-time", field: name)
        }
        return date
    }
}
