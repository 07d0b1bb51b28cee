public import Foundation

/// One thing the backend should hear about: a device Herald deactivated, or a delivery that finally failed.
public struct WebhookEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Apple said the token is dead; Herald will not send to it again.
        case deviceDeactivated = "device.deactivated"
        /// A delivery ended as failed (no more retries).
        case deliveryFailed = "delivery.failed"
    }

    public var type: Kind
    public var occurredAt: Date
    /// Herald's device id (never the token).
    public var deviceId: UUID
    /// The user's external id, as the backend knows it.
    public var userId: String
    /// Apple's reason, or Herald's (`unregistered`, `bad_device_token`, `DeviceTokenNotForTopic`, …).
    public var reason: String
    public var deliveryId: UUID?
    public var notificationId: UUID?

    public init(
        type: Kind, occurredAt: Date, deviceId: UUID, userId: String, reason: String, deliveryId: UUID? = nil,
        notificationId: UUID? = nil
    ) {
        self.type = type
        self.occurredAt = occurredAt
        self.deviceId = deviceId
        self.userId = userId
        self.reason = reason
        self.deliveryId = deliveryId
        self.notificationId = notificationId
    }
}

/// The webhook's request body: `{"events": [...]}`.
public struct WebhookBatch: Codable, Hashable, Sendable {
    public var events: [WebhookEvent]

    public init(events: [WebhookEvent]) { self.events = events }
}
