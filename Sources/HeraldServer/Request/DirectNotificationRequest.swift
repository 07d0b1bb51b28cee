import Foundation
import HeraldCore

/// Reads `POST /notifications` bodies into a ``DirectNotification``.
enum DirectNotificationRequest {
    static func parse(_ body: JSONObject) throws(APIError) -> DirectNotification {
        try body.allowOnly([
            "userIds", "deviceIds", "projectId", "type", "alert", "badge", "sound", "threadId", "category",
            "contentAvailable", "mutableContent", "data", "pushType", "priority", "collapseId", "expiration", "sendAt",
            "respectPreferences",
        ])
        var direct = DirectNotification()
        for (index, value) in (try body.array("userIds", maximum: 10_000) ?? []).enumerated() {
            guard let text = value.stringValue, let id = ExternalID(text) else {
                throw JSONObject.badID("userIds[\(index)]")
            }
            direct.userIDs.append(id)
        }
        for (index, value) in (try body.array("deviceIds", maximum: 10_000) ?? []).enumerated() {
            guard let text = value.stringValue, let id = UUID(uuidString: text) else {
                throw .validation("must be a UUID", field: "deviceIds[\(index)]")
            }
            direct.deviceIDs.append(id)
        }
        direct.project = try body.externalID("projectId")
        if let type = try body.string("type") { direct.type = type }
        if let alert = try body.object("alert") {
            try alert.allowOnly(["title", "subtitle", "body"])
            direct.alert = .init(
                title: try alert.string("title"), subtitle: try alert.string("subtitle"), body: try alert.string("body")
            )
            if direct.alert == .init(title: nil, subtitle: nil, body: nil) {
                throw .validation("give title, subtitle or body", field: "alert")
            }
        }
        direct.badge = try body.integer("badge")
        direct.sound = try body.string("sound")
        direct.threadID = try body.string("threadId")
        direct.category = try body.string("category")
        direct.contentAvailable = try body.bool("contentAvailable") ?? false
        direct.mutableContent = try body.bool("mutableContent") ?? false
        if let data = try body.object("data") { direct.data = data.members }
        direct.pushType = try body.string("pushType")
        direct.priority = try body.integer("priority")
        direct.collapseID = try body.string("collapseId")
        direct.expiration = try body.date("expiration")
        direct.sendAt = try body.date("sendAt")
        direct.respectPreferences = try body.bool("respectPreferences") ?? true
        try JSONObject.domain { () throws(DomainError) in try direct.validate() }
        return direct
    }
}
