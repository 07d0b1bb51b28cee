/// A push an APNs client handed to Herald's APNs ingress, as the outbox keeps it: what the engine sends on exactly as
/// the client wrote it. Stored inside ``NotificationMessage`` (`"relayed"`), beside its push type, priority and
/// collapse id, so the engine reads relayed pushes through the same typed content as every other notification.
public struct RelayedPush: Codable, Sendable, Equatable {
    /// The client's `apns-topic`, the push type's suffix included.
    public var topic: String
    /// The payload's JSON text, byte for byte as the client sent it. A string, not a JSON object: `jsonb` would
    /// reorder its keys and respace it, and the client's push must reach Apple unchanged.
    public var payload: String
    /// The client's `apns-expiration` in seconds since the epoch (`0`: try once); nil when it sent none.
    public var expiration: Int64?

    public init(topic: String, payload: String, expiration: Int64?) {
        self.topic = topic
        self.payload = payload
        self.expiration = expiration
    }
}
