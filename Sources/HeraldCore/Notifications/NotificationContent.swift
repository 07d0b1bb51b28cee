public import APNsCore

/// What a notification says and how Apple should treat it: stored as `notifications.content` (jsonb)
/// by the API and read by the delivery engine, so both speak this one type.
///
/// JSON keys are the property names (camelCase). Every field is optional; an empty content is a
/// valid silent push only when `contentAvailable` is set.
public struct NotificationContent: Codable, Hashable, Sendable {
    /// `aps.alert.title`.
    public var title: String?
    /// `aps.alert.subtitle`.
    public var subtitle: String?
    /// `aps.alert.body`; shortened with "…" when the payload would be too large.
    public var body: String?
    /// `aps.badge`; left out when the user turned badges off.
    public var badge: Int?
    /// `aps.sound` (a sound file name or `default`); left out when the user turned sounds off.
    public var sound: String?
    /// `aps.thread-id`, grouping notifications on the device.
    public var threadID: String?
    /// `aps.category`, selecting the app's actions.
    public var category: String?
    /// `aps.content-available`: wake the app in the background.
    public var contentAvailable: Bool?
    /// `aps.mutable-content`: let the app's service extension change the notification.
    public var mutableContent: Bool?
    /// App-defined keys beside `aps` (`type`, `feedbackId`, `actionUrl`, …).
    public var data: [String: JSONValue]?
    /// `apns-push-type` (`alert`, `background`, `voip`, …); default `alert`, or `background` for a push
    /// with `contentAvailable` and no alert text.
    public var pushType: String?
    /// `apns-priority`: 10, 5 or 1; default 10 (5 for background pushes).
    public var priority: Int?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// `apns-expiration` in seconds since the epoch; 0 means "deliver once, never store". When absent,
    /// the notification's `expires_at` is used.
    public var expiration: Int?

    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, badge: Int? = nil, sound: String? = nil,
        threadID: String? = nil, category: String? = nil, contentAvailable: Bool? = nil,
        mutableContent: Bool? = nil, data: [String: JSONValue]? = nil, pushType: String? = nil,
        priority: Int? = nil, collapseID: String? = nil, expiration: Int? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.data = data
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
    }

    enum CodingKeys: String, CodingKey {
        case title, subtitle, body, badge, sound, category, contentAvailable, mutableContent, data, pushType
        case priority, expiration
        case threadID = "threadId"
        case collapseID = "collapseId"
    }

    /// Whether there is any visible alert text.
    public var hasAlert: Bool { title != nil || subtitle != nil || body != nil }

    /// The push type this content asks for; nil when `pushType` names no type Apple knows.
    public var resolvedPushType: PushType? {
        if let pushType { return PushType(headerValue: pushType) }
        return contentAvailable == true && !hasAlert ? .background : .alert
    }

    /// The backend's feedback id from `data.feedbackId`, kept in delivery logs.
    public var feedbackID: String? {
        if case .string(let id)? = data?["feedbackId"], !id.isEmpty, id.utf8.count <= 256 { return id }
        return nil
    }
}
