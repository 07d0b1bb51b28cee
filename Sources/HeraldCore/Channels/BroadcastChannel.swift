public import APNsCore
public import Foundation

/// A broadcast channel Herald made with Apple for one app and environment.
public struct BroadcastChannel: Sendable, Equatable {
    /// Herald's id of the channel, safe in a URL path (Apple's base64 may hold `/`).
    public var id: UUID
    /// Apple's id: what the app subscribes a Live Activity to and what broadcasts carry.
    public var apnsChannelID: ChannelID
    public var app: ExternalID
    public var environment: PushEnvironment
    public var storagePolicy: MessageStoragePolicy
    public var createdAt: Date
}

/// One broadcast as the log keeps it: what was sent to which channel and Apple's answer.
public struct ChannelBroadcastRecord: Sendable, Equatable {
    public var id: UUID
    public var channel: ChannelID
    public var event: LiveActivityUpdate.Event
    /// `sent` or `failed`.
    public var status: String
    public var httpStatus: Int?
    public var reason: String?
    /// Apple's `apns-unique-id`, to find the broadcast in its console.
    public var uniqueID: String?
    public var latencyMs: Double?
    public var createdAt: Date
}

/// A broadcast's content: an update or the end of every Live Activity subscribed to the channel (Apple does not
/// start activities by broadcast).
public struct ChannelBroadcast: Sendable, Equatable {
    public var event: LiveActivityUpdate.Event
    public var contentState: [String: JSONValue]
    public var alert: Alert?
    public var staleDate: Date?
    public var dismissalDate: Date?
    public var relevanceScore: Double?
    public var priority: PushPriority = .powerConsidered
    /// For a channel that keeps the most recent broadcast: when Apple may drop it (at most 8 hours ahead;
    /// default 8 hours). A channel that stores nothing always sends expiration 0.
    public var expiration: Date?

    public init(event: LiveActivityUpdate.Event, contentState: [String: JSONValue]) {
        self.event = event
        self.contentState = contentState
    }

    /// The payload, stamped with `now`.
    public func payload(at now: Date) -> Payload {
        var update = LiveActivityUpdate(activity: ExternalID("broadcast")!, event: event, contentState: contentState)
        update.alert = alert
        update.staleDate = staleDate
        update.dismissalDate = dismissalDate
        update.relevanceScore = relevanceScore
        return update.payload(at: now)
    }

    /// The `apns-expiration` Apple requires for a channel of `policy`.
    /// - Throws: ``DomainError`` `.invalid` (field `expiration`) for an expiration a channel of `policy` refuses.
    public func expiration(for policy: MessageStoragePolicy, now: Date) throws(DomainError) -> PushExpiration {
        switch policy {
        case .noStorage:
            guard expiration == nil else {
                throw .invalid(
                    "this channel stores nothing, so broadcasts to it cannot expire later", field: "expiration")
            }
            return .immediately
        case .mostRecent:
            let latest = now.addingTimeInterval(MessageStoragePolicy.longestStorage)
            guard let expiration else { return .at(latest) }
            guard expiration > now, expiration <= latest else {
                throw .invalid("must be in the next 8 hours", field: "expiration")
            }
            return .at(expiration)
        }
    }

    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validate(at now: Date) throws(DomainError) {
        if dismissalDate != nil, event != .end {
            throw .invalid("only an end has a dismissal date", field: "dismissalDate")
        }
        guard let size = try? payload(at: now).encoded().count, size <= PushRequest.broadcastPayloadLimit else {
            throw .invalid(
                "the payload is larger than APNs' \(PushRequest.broadcastPayloadLimit) bytes", field: "contentState")
        }
    }
}
