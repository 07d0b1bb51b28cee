public import APNsCore
public import Foundation

/// A push the backend composed itself (`POST /notifications`), sent to users, devices and/or a project's audience.
public struct DirectNotification: Sendable, Equatable {
    public var userIDs: [ExternalID] = []
    public var deviceIDs: [UUID] = []
    public var project: ExternalID?
    /// One of the four event types (its preference toggle applies) or a custom type (only the global toggle and
    /// the project mute apply).
    public var type = "custom"
    /// The visible text: title, subtitle and body.
    public var alert: Alert?
    public var badge: Int?
    /// A sound file name, or a critical alert's sound with its volume.
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    public var contentAvailable = false
    public var mutableContent = false
    /// Custom top-level payload keys.
    public var data: [String: JSONValue] = [:]
    public var pushType: PushType?
    public var priority: PushPriority?
    public var collapseID: CollapseID?
    public var expiration: Date?
    public var sendAt: Date?
    public var respectPreferences = true
    /// `false` sends even inside the recipients' quiet hours.
    public var respectQuietHours = true
    /// `aps.interruption-level`: time-sensitive and critical alerts break through Focus, and quiet hours too.
    public var interruptionLevel: APS.InterruptionLevel?
    /// `aps.relevance-score`, 0…1: how the system ranks this notification in the notification summary.
    public var relevanceScore: Double?
    /// `aps.target-content-id`: the window or content the app brings forward when the notification is opened.
    public var targetContentID: String?
    /// `aps.filter-criteria`: the Focus filter that lets the notification through.
    public var filterCriteria: String?
    /// The backend's labels, for listing and canceling scheduled sends together.
    public var tags: Set<NotificationTag> = []
    /// The line its deliveries wait in; nil takes ``DeliveryLane/default(for:)``.
    public var lane: DeliveryLane?

    public init() {}

    /// The push type named `name` at the API.
    /// - Throws: ``DomainError`` `.invalid` (field `pushType`) for a name Herald cannot send, saying why.
    public static func pushType(named name: String) throws(DomainError) -> PushType {
        if let type = PushType(headerValue: name) { return type }
        if PushType.certificateOnlyHeaderValues.contains(name) {
            throw .invalid(
                "\(name) pushes need certificate-based authentication, and Herald signs with provider tokens",
                field: "pushType")
        }
        throw .invalid("must be one of \(PushType.all.map(\.headerValue).joined(separator: ", "))", field: "pushType")
    }

    /// Checks the rules no single field can: targets, APNs option values, the payload's size.
    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validate() throws(DomainError) {
        guard !userIDs.isEmpty || !deviceIDs.isEmpty || project != nil else {
            throw .invalid("give userIds, deviceIds or projectId", field: "userIds")
        }
        guard userIDs.count <= 10_000 else { throw .invalid("at most 10000 users", field: "userIds") }
        guard deviceIDs.count <= 10_000 else { throw .invalid("at most 10000 devices", field: "deviceIds") }
        guard tags.count <= NotificationTag.maximumCount else {
            throw .invalid("at most \(NotificationTag.maximumCount) tags", field: "tags")
        }
        guard (1...50).contains(type.codePointCount), !type.containsControlOrLineBreak else {
            throw .invalid("must be 1 to 50 printable characters", field: "type")
        }
        if resolvedPushType == .background, resolvedPriority == .immediate {
            throw .invalid("background pushes must have priority 5 or 1", field: "priority")
        }
        try CountRange.check(badge, field: "badge")
        for key in [Payload.apsKey, PushTemplate.notificationIDKey] where data[key] != nil {
            throw .invalid("\(key) is Herald's to fill", field: "data.\(key)")
        }
        if let expiration, expiration <= (sendAt ?? Date()) {
            throw .invalid("must be later than sendAt (or now)", field: "expiration")
        }
        if let relevanceScore, !(0...1).contains(relevanceScore) {
            throw .invalid("must be 0 to 1", field: "relevanceScore")
        }
        for (field, text) in [("targetContentId", targetContentID), ("filterCriteria", filterCriteria)] {
            if let text, !(1...256).contains(text.codePointCount) || text.containsControlOrLineBreak {
                throw .invalid("must be 1 to 256 characters on one line", field: field)
            }
        }
        if resolvedPushType == .widgets || resolvedPushType == .controls {
            // WidgetKit reads one flag and nothing else.
            guard alert == nil, badge == nil, sound == nil, !contentAvailable, !mutableContent, data.isEmpty,
                interruptionLevel == nil, relevanceScore == nil, targetContentID == nil, filterCriteria == nil
            else {
                throw .invalid(
                    "a \(resolvedPushType) push only tells WidgetKit to reload: leave out alert, badge, sound, "
                        + "contentAvailable, mutableContent, interruptionLevel and data", field: "pushType")
            }
        } else if resolvedPushType == .liveActivity {
            throw .invalid("Live Activities are started and updated with /api/v1/activities", field: "pushType")
        } else if alert == nil, badge == nil, sound == nil, !contentAvailable, data.isEmpty {
            throw .invalid("give alert, badge, sound, contentAvailable or data", field: "alert")
        }
        // An alert goes out with the notification's id beside the custom keys (PushTemplate).
        var sent = payload
        if resolvedPushType == .alert { sent.custom[PushTemplate.notificationIDKey] = .string(UUID().uuidString) }
        guard let size = try? sent.encoded().count, size <= resolvedPushType.payloadLimit else {
            throw .invalid("the payload is larger than APNs' \(resolvedPushType.payloadLimit) bytes", field: "data")
        }
    }

    /// `pushType`, else `background` for content-only pushes, else `alert`.
    public var resolvedPushType: PushType {
        pushType ?? (alert == nil && badge == nil && sound == nil && contentAvailable ? .background : .alert)
    }

    /// Whether the push waits out its recipients' quiet hours: alerts do, unless they are time-sensitive or critical or
    /// the backend said not to; pushes that show nothing (or belong to a call) never wait.
    public var waitsOutQuietHours: Bool {
        respectQuietHours && resolvedPushType == .alert && interruptionLevel != .timeSensitive
            && interruptionLevel != .critical
    }

    /// `priority`, else Apple's default for the push type (5 for background pushes, else 10).
    public var resolvedPriority: PushPriority { priority ?? .default(for: resolvedPushType) }

    /// The APNs payload: `aps` from the alert and options, the custom keys beside it; for widgets and controls,
    /// `{"aps":{"content-changed":true}}`.
    public var payload: Payload {
        if resolvedPushType == .widgets || resolvedPushType == .controls {
            return Payload(aps: APS(contentChanged: true))
        }
        return Payload(
            aps: APS(
                alert: alert, badge: badge, sound: sound, threadID: threadID, category: category,
                contentAvailable: contentAvailable ? true : nil, mutableContent: mutableContent ? true : nil,
                targetContentID: targetContentID, interruptionLevel: interruptionLevel, relevanceScore: relevanceScore,
                filterCriteria: filterCriteria),
            custom: data)
    }
}
