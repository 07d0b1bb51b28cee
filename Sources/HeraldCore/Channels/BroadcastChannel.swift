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

extension LiveActivityUpdate {
    /// The `apns-expiration` Apple requires of a broadcast to a channel of `policy`: 0 for a channel that stores
    /// nothing, else ``expiration`` or 8 hours ahead (at most 8 hours).
    /// - Throws: ``DomainError`` `.invalid` (field `expiration`) for an expiration a channel of `policy` refuses.
    public func broadcastExpiration(for policy: MessageStoragePolicy, now: Date) throws(DomainError) -> PushExpiration {
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

    /// The rules of a broadcast: those of any update, and Apple's 5120 bytes.
    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public func validateAsBroadcast(at now: Date) throws(DomainError) {
        try checkDismissal()
        try LiveActivityTime.checkSize(payload(at: now), limit: PushRequest.broadcastPayloadLimit)
    }
}
