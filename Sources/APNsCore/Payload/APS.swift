/// The `aps` dictionary: what the system does with a push. Unset keys are omitted.
public struct APS: Hashable, Sendable, Codable {
    /// `aps.interruption-level`.
    public enum InterruptionLevel: String, Hashable, Sendable, Codable {
        case passive, active
        case timeSensitive = "time-sensitive"
        case critical
    }

    /// `aps.event` for live activities.
    public enum LiveActivityEvent: String, Hashable, Sendable, Codable {
        case start, update, end
    }

    public var alert: Alert?
    public var badge: Int?
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    public var contentAvailable: Bool?
    public var mutableContent: Bool?
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    public var filterCriteria: String?
    // Live activities.
    public var timestamp: Int?
    public var event: LiveActivityEvent?
    public var contentState: JSONValue?
    public var staleDate: Int?
    public var dismissalDate: Int?
    public var attributesType: String?
    public var attributes: JSONValue?
    /// Asks a push-to-start live activity for its update token (`input-push-token: 1`).
    public var inputPushToken: Bool?
    /// Subscribes a push-to-start live activity to a broadcast channel (`input-push-channel`).
    public var inputPushChannel: String?
    /// Tells WidgetKit to reload a widget's timelines (`content-changed: true`, with push type `widgets`).
    public var contentChanged: Bool?

    public init(
        alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadID: String? = nil,
        category: String? = nil, contentAvailable: Bool? = nil, mutableContent: Bool? = nil,
        targetContentID: String? = nil, interruptionLevel: InterruptionLevel? = nil,
        relevanceScore: Double? = nil, filterCriteria: String? = nil, timestamp: Int? = nil,
        event: LiveActivityEvent? = nil, contentState: JSONValue? = nil, staleDate: Int? = nil,
        dismissalDate: Int? = nil, attributesType: String? = nil, attributes: JSONValue? = nil,
        inputPushToken: Bool? = nil, inputPushChannel: String? = nil, contentChanged: Bool? = nil
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.timestamp = timestamp
        self.event = event
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
        self.contentChanged = contentChanged
    }

    enum CodingKeys: String, CodingKey {
        case alert, badge, sound, category, timestamp, event, attributes
        case threadID = "thread-id"
        case contentAvailable = "content-available"
        case mutableContent = "mutable-content"
        case targetContentID = "target-content-id"
        case interruptionLevel = "interruption-level"
        case relevanceScore = "relevance-score"
        case filterCriteria = "filter-criteria"
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case attributesType = "attributes-type"
        case inputPushToken = "input-push-token"
        case inputPushChannel = "input-push-channel"
        case contentChanged = "content-changed"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alert = try container.decodeIfPresent(Alert.self, forKey: .alert)
        badge = try container.decodeIfPresent(Int.self, forKey: .badge)
        sound = try container.decodeIfPresent(Sound.self, forKey: .sound)
        threadID = try container.decodeIfPresent(String.self, forKey: .threadID)
        category = try container.decodeIfPresent(String.self, forKey: .category)
        contentAvailable = try container.decodeIfPresent(Int.self, forKey: .contentAvailable).map { $0 == 1 }
        mutableContent = try container.decodeIfPresent(Int.self, forKey: .mutableContent).map { $0 == 1 }
        targetContentID = try container.decodeIfPresent(String.self, forKey: .targetContentID)
        interruptionLevel = try container.decodeIfPresent(InterruptionLevel.self, forKey: .interruptionLevel)
        relevanceScore = try container.decodeIfPresent(Double.self, forKey: .relevanceScore)
        filterCriteria = try container.decodeIfPresent(String.self, forKey: .filterCriteria)
        timestamp = try container.decodeIfPresent(Int.self, forKey: .timestamp)
        event = try container.decodeIfPresent(LiveActivityEvent.self, forKey: .event)
        contentState = try container.decodeIfPresent(JSONValue.self, forKey: .contentState)
        staleDate = try container.decodeIfPresent(Int.self, forKey: .staleDate)
        dismissalDate = try container.decodeIfPresent(Int.self, forKey: .dismissalDate)
        attributesType = try container.decodeIfPresent(String.self, forKey: .attributesType)
        attributes = try container.decodeIfPresent(JSONValue.self, forKey: .attributes)
        inputPushToken = try container.decodeIfPresent(Int.self, forKey: .inputPushToken).map { $0 == 1 }
        inputPushChannel = try container.decodeIfPresent(String.self, forKey: .inputPushChannel)
        contentChanged = try container.decodeIfPresent(Bool.self, forKey: .contentChanged)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(alert, forKey: .alert)
        try container.encodeIfPresent(badge, forKey: .badge)
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(threadID, forKey: .threadID)
        try container.encodeIfPresent(category, forKey: .category)
        // Apple reads these flags as the integer 1; `false` is expressed by leaving them out.
        if contentAvailable == true { try container.encode(1, forKey: .contentAvailable) }
        if mutableContent == true { try container.encode(1, forKey: .mutableContent) }
        try container.encodeIfPresent(targetContentID, forKey: .targetContentID)
        try container.encodeIfPresent(interruptionLevel, forKey: .interruptionLevel)
        try container.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try container.encodeIfPresent(filterCriteria, forKey: .filterCriteria)
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(event, forKey: .event)
        try container.encodeIfPresent(contentState, forKey: .contentState)
        try container.encodeIfPresent(staleDate, forKey: .staleDate)
        try container.encodeIfPresent(dismissalDate, forKey: .dismissalDate)
        try container.encodeIfPresent(attributesType, forKey: .attributesType)
        try container.encodeIfPresent(attributes, forKey: .attributes)
        if inputPushToken == true { try container.encode(1, forKey: .inputPushToken) }
        try container.encodeIfPresent(inputPushChannel, forKey: .inputPushChannel)
        if contentChanged == true { try container.encode(true, forKey: .contentChanged) }
    }
}
