public import APNsCore
public import Foundation

/// A push the backend composed itself (`POST /notifications`), sent to users, devices and/or a project's audience.
public struct DirectNotification: Sendable, Equatable {
    public struct Alert: Sendable, Equatable {
        public var title: String?
        public var subtitle: String?
        public var body: String?

        public init(title: String?, subtitle: String?, body: String?) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }
    }

    public var userIDs: [ExternalID] = []
    public var deviceIDs: [UUID] = []
    public var project: ExternalID?
    /// One of the four event types (its preference toggle applies) or a custom type (only the global toggle and
    /// the project mute apply).
    public var type = "custom"
    public var alert: Alert?
    public var badge: Int?
    public var sound: String?
    public var threadID: String?
    public var category: String?
    public var contentAvailable = false
    public var mutableContent = false
    /// Custom top-level payload keys.
    public var data: [String: JSONValue] = [:]
    public var pushType: String?
    public var priority: Int?
    public var collapseID: String?
    public var expiration: Date?
    public var sendAt: Date?
    public var respectPreferences = true

    public init() {}

    /// Checks the rules no single field can: targets, APNs option values, the payload's size.
    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validate() throws(DomainError) {
        guard !userIDs.isEmpty || !deviceIDs.isEmpty || project != nil else {
            throw .invalid("give userIds, deviceIds or projectId", field: "userIds")
        }
        guard userIDs.count <= 10_000 else { throw .invalid("at most 10000 users", field: "userIds") }
        guard deviceIDs.count <= 10_000 else { throw .invalid("at most 10000 devices", field: "deviceIds") }
        guard (1...50).contains(type.count),
            !type.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 32 } == true })
        else { throw .invalid("must be 1 to 50 printable characters", field: "type") }
        if let pushType, PushType(headerValue: pushType) == nil {
            if PushType.certificateOnlyHeaderValues.contains(pushType) {
                throw .invalid(
                    "\(pushType) pushes need certificate-based authentication, and Herald signs with provider tokens",
                    field: "pushType")
            }
            throw .invalid(
                "must be one of \(PushType.all.map(\.headerValue).joined(separator: ", "))", field: "pushType")
        }
        if let priority, ![1, 5, 10].contains(priority) { throw .invalid("must be 10, 5 or 1", field: "priority") }
        if resolvedPushType == "background", resolvedPriority == 10 {
            throw .invalid("background pushes must have priority 5 or 1", field: "priority")
        }
        if let collapseID, !(1...64).contains(collapseID.utf8.count) {
            throw .invalid("must be 1 to 64 bytes", field: "collapseId")
        }
        if let badge, badge < 0 { throw .invalid("must not be negative", field: "badge") }
        if data["aps"] != nil { throw .invalid("aps is Herald's to fill", field: "data.aps") }
        if let expiration, expiration <= (sendAt ?? Date()) {
            throw .invalid("must be later than sendAt (or now)", field: "expiration")
        }
        if alert == nil, badge == nil, sound == nil, !contentAvailable, data.isEmpty {
            throw .invalid("give alert, badge, sound, contentAvailable or data", field: "alert")
        }
        guard let size = try? JSONEncoderCache.encode(payload).count, size <= 4096 else {
            throw .invalid("the payload is larger than APNs' 4096 bytes", field: "data")
        }
    }

    /// `pushType`, else `background` for content-only pushes, else `alert`.
    public var resolvedPushType: String {
        pushType ?? (alert == nil && badge == nil && sound == nil && contentAvailable ? "background" : "alert")
    }

    /// `priority`, else 5 for background pushes, else 10.
    public var resolvedPriority: Int { priority ?? (resolvedPushType == "background" ? 5 : 10) }

    /// The APNs payload: `aps` from the alert and options, the custom keys beside it.
    public var payload: JSONValue {
        var aps: [String: JSONValue] = [:]
        if let alert {
            var fields: [String: JSONValue] = [:]
            if let title = alert.title { fields["title"] = .string(title) }
            if let subtitle = alert.subtitle { fields["subtitle"] = .string(subtitle) }
            if let body = alert.body { fields["body"] = .string(body) }
            aps["alert"] = .object(fields)
        }
        if let badge { aps["badge"] = .int(badge) }
        if let sound { aps["sound"] = .string(sound) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let category { aps["category"] = .string(category) }
        if contentAvailable { aps["content-available"] = .int(1) }
        if mutableContent { aps["mutable-content"] = .int(1) }
        var root = data
        root["aps"] = .object(aps)
        return .object(root)
    }
}

/// A shared encoder for sizing payloads.
enum JSONEncoderCache {
    static func encode(_ value: JSONValue) throws -> Data { try JSONEncoder().encode(value) }
}
