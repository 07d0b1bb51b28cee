public import APNsCore
public import Foundation

/// A remote start of a Live Activity (`POST /activities`): sent to the push-to-start tokens of one attributes type
/// of the named users' and devices' (iOS 17.2+), as Apple documents the start payload: `event` `start`, a
/// `timestamp`, `attributes-type`, `attributes`, `content-state` and an `alert`.
public struct LiveActivityStart: Sendable, Equatable {
    /// What a started activity reports back: a new update token, or a broadcast channel it listens to.
    public enum Input: Sendable, Equatable {
        case pushToken
        case channel(String)
    }

    public var userIDs: [ExternalID] = []
    public var deviceIDs: [UUID] = []
    public var app: ExternalID?
    public var attributesType: ActivityAttributesType
    public var attributes: [String: JSONValue]
    public var contentState: [String: JSONValue]
    public var alert: Alert
    public var staleDate: Date?
    public var relevanceScore: Double?
    public var input: Input?
    public var priority: PushPriority = .powerConsidered
    public var expiration: Date?

    public init(
        attributesType: ActivityAttributesType, attributes: [String: JSONValue], contentState: [String: JSONValue],
        alert: Alert
    ) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
    }

    /// The payload, stamped with `now` (Apple orders a Live Activity's pushes by their `timestamp`).
    public func payload(at now: Date) -> Payload {
        var inputToken: Bool?
        var inputChannel: String?
        switch input {
        case .pushToken: inputToken = true
        case .channel(let channel): inputChannel = channel
        case nil: break
        }
        return Payload(
            aps: APS(
                alert: alert, relevanceScore: relevanceScore, timestamp: LiveActivityTime.seconds(now), event: .start,
                contentState: .object(contentState), staleDate: staleDate.map(LiveActivityTime.seconds),
                attributesType: attributesType.rawValue, attributes: .object(attributes),
                inputPushToken: inputToken, inputPushChannel: inputChannel))
    }

    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validate(at now: Date) throws(DomainError) {
        guard !userIDs.isEmpty || !deviceIDs.isEmpty else {
            throw .invalid("give userIds or deviceIds", field: "userIds")
        }
        guard userIDs.count <= 10_000 else { throw .invalid("at most 10000 users", field: "userIds") }
        guard deviceIDs.count <= 10_000 else { throw .invalid("at most 10000 devices", field: "deviceIds") }
        if case .channel(let channel) = input, !LiveActivityTime.isChannelID(channel) {
            throw .invalid("must be a channel id (base64)", field: "inputPushChannel")
        }
        try LiveActivityTime.checkExpiration(expiration, now: now)
        try LiveActivityTime.checkSize(payload(at: now))
    }
}

/// An update or the end of running Live Activities: sent to the update tokens the app reported for one activity
/// (`POST /activities/{activityId}/events`), or broadcast to every activity subscribed to a channel.
public struct LiveActivityUpdate: Sendable, Equatable {
    public enum Event: String, Sendable, CaseIterable {
        case update, end
    }

    public var event: Event
    public var contentState: [String: JSONValue]
    public var alert: Alert?
    public var staleDate: Date?
    /// `end` only: when the ended activity leaves the Lock Screen (a past date: at once).
    public var dismissalDate: Date?
    public var relevanceScore: Double?
    public var priority: PushPriority = .powerConsidered
    /// When Apple may drop the update if it cannot deliver it (for a broadcast, see
    /// ``broadcastExpiration(for:now:)``).
    public var expiration: Date?

    public init(event: Event, contentState: [String: JSONValue]) {
        self.event = event
        self.contentState = contentState
    }

    public func payload(at now: Date) -> Payload {
        Payload(
            aps: APS(
                alert: alert, relevanceScore: relevanceScore, timestamp: LiveActivityTime.seconds(now),
                event: event == .end ? .end : .update, contentState: .object(contentState),
                staleDate: staleDate.map(LiveActivityTime.seconds),
                dismissalDate: dismissalDate.map(LiveActivityTime.seconds)))
    }

    /// The rules of an update to an activity's tokens.
    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validate(at now: Date) throws(DomainError) {
        try checkDismissal()
        try LiveActivityTime.checkExpiration(expiration, now: now)
        try LiveActivityTime.checkSize(payload(at: now))
    }

    func checkDismissal() throws(DomainError) {
        if dismissalDate != nil, event != .end {
            throw .invalid("only an end has a dismissal date", field: "dismissalDate")
        }
    }
}

/// Rules Live Activity pushes share.
enum LiveActivityTime {
    /// Seconds since 1970, the unit of `timestamp`, `stale-date` and `dismissal-date`.
    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded(.down)) }

    /// Apple's channel ids are base64 of unstated length.
    static func isChannelID(_ text: String) -> Bool {
        (1...256).contains(text.utf8.count) && Data(base64Encoded: text) != nil
    }

    static func checkExpiration(_ expiration: Date?, now: Date) throws(DomainError) {
        if let expiration, expiration <= now { throw .invalid("must be in the future", field: "expiration") }
    }

    static func checkSize(_ payload: Payload, limit: Int = PushType.liveActivity.payloadLimit) throws(DomainError) {
        guard let size = try? payload.encoded().count, size <= limit else {
            throw .invalid("the payload is larger than APNs' \(limit) bytes", field: "contentState")
        }
    }
}
