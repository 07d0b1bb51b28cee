import APNsCore
import Foundation
import HeraldCore

/// Reads `POST /notifications` bodies into a ``DirectNotification``.
enum DirectNotificationRequest {
    static func parse(_ body: JSONObject) throws(APIError) -> DirectNotification {
        try body.allowOnly([
            "userIds", "deviceIds", "projectId", "type", "alert", "badge", "sound", "threadId", "category",
            "contentAvailable", "mutableContent", "data", "pushType", "priority", "collapseId", "expiration", "sendAt",
            "respectPreferences", "appId", "tags", "respectQuietHours", "interruptionLevel", "relevanceScore",
            "targetContentId", "filterCriteria", "lane",
        ])
        var direct = DirectNotification()
        direct.userIDs = try body.externalIDs("userIds", maximum: 10_000)
        direct.deviceIDs = try body.uuids("deviceIds", maximum: 10_000)
        direct.project = try body.externalID("projectId")
        if let type = try body.string("type") { direct.type = type }
        direct.alert = try body.alert("alert")
        direct.badge = try body.integer("badge")
        direct.sound = try body.sound("sound")
        direct.relevanceScore = try body.number("relevanceScore")
        direct.targetContentID = try body.string("targetContentId")
        direct.filterCriteria = try body.string("filterCriteria")
        direct.threadID = try body.string("threadId")
        direct.category = try body.string("category")
        direct.contentAvailable = try body.bool("contentAvailable") ?? false
        direct.mutableContent = try body.bool("mutableContent") ?? false
        if let data = try body.object("data") { direct.data = data.members }
        if let name = try body.string("pushType") {
            direct.pushType = try JSONObject.domain { () throws(DomainError) in
                try DirectNotification.pushType(named: name)
            }
        }
        if let value = try body.integer("priority") {
            guard let priority = PushPriority(rawValue: value) else {
                throw .validation("must be 10, 5 or 1", field: "priority")
            }
            direct.priority = priority
        }
        if let text = try body.string("collapseId") {
            if let problem = HeaderValue.problem(in: text) {
                throw .validation("\(problem): it travels as the apns-collapse-id header", field: "collapseId")
            }
            guard let id = CollapseID(backendKey: text) else {
                throw .validation("must be 1 to 64 characters", field: "collapseId")
            }
            direct.collapseID = id
        }
        direct.expiration = try body.date("expiration")
        direct.sendAt = try body.date("sendAt")
        direct.respectPreferences = try body.bool("respectPreferences") ?? true
        direct.respectQuietHours = try body.bool("respectQuietHours") ?? true
        if let level = try body.string("interruptionLevel") {
            guard let parsed = APS.InterruptionLevel(rawValue: level) else {
                throw .validation("must be passive, active, time-sensitive or critical", field: "interruptionLevel")
            }
            direct.interruptionLevel = parsed
        }
        if let lane = try body.string("lane") {
            guard let parsed = DeliveryLane(rawValue: lane) else {
                throw .validation("must be immediate or bulk", field: "lane")
            }
            direct.lane = parsed
        }
        for (index, text) in (try body.stringArray("tags", maximum: NotificationTag.maximumCount) ?? []).enumerated() {
            guard let tag = NotificationTag(text) else {
                throw .validation("must be 1 to 64 printable characters", field: "tags[\(index)]")
            }
            direct.tags.insert(tag)
        }
        try JSONObject.domain { () throws(DomainError) in try direct.validate() }
        return direct
    }
}
