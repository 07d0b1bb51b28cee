public import Foundation

/// The body of Herald's direct-send route, `POST /api/v1/notifications`.
///
/// At least one target (`userIds`, `deviceIds` or `projectId`) is required. Absent fields are left out
/// of the JSON so Herald applies its defaults.
public struct DirectSendRequest: Hashable, Sendable, Encodable {
    public var userIds: [String]
    public var deviceIds: [String]
    public var projectId: String?
    public var type: String?
    /// `nil` for badge-only and background pushes.
    public var alert: Alert?
    public var badge: Int?
    public var sound: String?
    public var threadId: String?
    public var category: String?
    public var contentAvailable: Bool?
    public var mutableContent: Bool?
    /// Custom top-level payload keys, beside `aps`.
    public var data: [String: JSONValue]?
    public var pushType: PushType?
    public var priority: PushPriority?
    public var collapseId: CollapseID?
    public var expiration: Date?
    public var sendAt: Date?
    public var respectPreferences: Bool?

    public init(userIds: [String] = [], deviceIds: [String] = [], projectId: String? = nil) {
        self.userIds = userIds
        self.deviceIds = deviceIds
        self.projectId = projectId
    }

    public var hasTarget: Bool { !userIds.isEmpty || !deviceIds.isEmpty || projectId != nil }

    private enum CodingKeys: String, CodingKey {
        case userIds, deviceIds, projectId, type, alert, badge, sound, threadId, category
        case contentAvailable, mutableContent, data, pushType, priority, collapseId, expiration, sendAt
        case respectPreferences
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !userIds.isEmpty { try container.encode(userIds, forKey: .userIds) }
        if !deviceIds.isEmpty { try container.encode(deviceIds, forKey: .deviceIds) }
        try container.encodeIfPresent(projectId, forKey: .projectId)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(alert, forKey: .alert)
        try container.encodeIfPresent(badge, forKey: .badge)
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(threadId, forKey: .threadId)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(contentAvailable, forKey: .contentAvailable)
        try container.encodeIfPresent(mutableContent, forKey: .mutableContent)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(pushType, forKey: .pushType)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(collapseId?.rawValue, forKey: .collapseId)
        try container.encodeIfPresent(expiration.map(ISO8601Timestamp.format), forKey: .expiration)
        try container.encodeIfPresent(sendAt.map(ISO8601Timestamp.format), forKey: .sendAt)
        try container.encodeIfPresent(respectPreferences, forKey: .respectPreferences)
    }
}
