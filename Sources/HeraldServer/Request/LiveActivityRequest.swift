import APNsCore
import Foundation
import HeraldCore

/// Reads the bodies of the Live Activity routes.
enum LiveActivityRequest {
    /// `POST /activities`.
    static func start(_ body: JSONObject, now: Date) throws(APIError) -> LiveActivityStart {
        try body.allowOnly([
            "userIds", "deviceIds", "appId", "attributesType", "attributes", "contentState", "alert", "staleDate",
            "relevanceScore", "inputPushChannel", "inputPushToken", "priority", "expiration",
        ])
        guard let alert = try body.alert("alert") else {
            throw .validation("a remote start shows an alert", field: "alert")
        }
        var start = LiveActivityStart(
            attributesType: try attributesType(body), attributes: try requiredObject(body, "attributes"),
            contentState: try requiredObject(body, "contentState"), alert: alert)
        start.userIDs = try body.externalIDs("userIds", maximum: 10_000)
        start.deviceIDs = try body.uuids("deviceIds", maximum: 10_000)
        start.app = try body.externalID("appId")
        start.staleDate = try body.date("staleDate")
        start.relevanceScore = try body.number("relevanceScore")
        let channel = try body.string("inputPushChannel")
        let wantsToken = try body.bool("inputPushToken") ?? false
        if channel != nil, wantsToken {
            throw .validation("give inputPushChannel or inputPushToken, not both", field: "inputPushToken")
        }
        start.input = channel.map(LiveActivityStart.Input.channel) ?? (wantsToken ? .pushToken : nil)
        start.priority = try priority(body) ?? .powerConsidered
        start.expiration = try body.date("expiration")
        try JSONObject.domain { () throws(DomainError) in try start.validate(at: now) }
        return start
    }

    /// `POST /activities/{activityId}/events`.
    static func update(_ body: JSONObject, now: Date) throws(APIError) -> LiveActivityUpdate {
        let update = try updateFields(body)
        try JSONObject.domain { () throws(DomainError) in try update.validate(at: now) }
        return update
    }

    /// The fields an update or end has, whether it goes to an activity's tokens or to a broadcast channel.
    static func updateFields(_ body: JSONObject) throws(APIError) -> LiveActivityUpdate {
        try body.allowOnly([
            "event", "contentState", "alert", "staleDate", "dismissalDate", "relevanceScore", "priority",
            "expiration",
        ])
        guard let event = LiveActivityUpdate.Event(rawValue: try body.requiredString("event")) else {
            throw .validation("must be update or end", field: "event")
        }
        var update = LiveActivityUpdate(event: event, contentState: try requiredObject(body, "contentState"))
        update.alert = try body.alert("alert")
        update.staleDate = try body.date("staleDate")
        update.dismissalDate = try body.date("dismissalDate")
        update.relevanceScore = try body.number("relevanceScore")
        update.priority = try priority(body) ?? .powerConsidered
        update.expiration = try body.date("expiration")
        return update
    }

    static func attributesType(_ body: JSONObject) throws(APIError) -> ActivityAttributesType {
        guard let type = ActivityAttributesType(try body.requiredString("attributesType")) else {
            throw .validation(
                "must be the Swift name of the ActivityAttributes type: a letter or _, then up to 127 of "
                    + "A-Z a-z 0-9 _ .", field: "attributesType")
        }
        return type
    }

    /// Apple budgets priority 10 for Live Activities, so 5 is the default and 10 only when asked.
    private static func priority(_ body: JSONObject) throws(APIError) -> PushPriority? {
        guard let value = try body.integer("priority") else { return nil }
        guard value == 5 || value == 10, let priority = PushPriority(rawValue: value) else {
            throw .validation("must be 5 or 10", field: "priority")
        }
        return priority
    }

    private static func requiredObject(_ body: JSONObject, _ key: String) throws(APIError) -> [String: JSONValue] {
        guard let object = try body.object(key) else { throw .validation("is required", field: key) }
        return object.members
    }

}
