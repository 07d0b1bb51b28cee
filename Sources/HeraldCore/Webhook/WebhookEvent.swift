public import Foundation

/// One thing the backend should hear about: a device Herald deactivated, a delivery that finally failed, or what a
/// person did with a push.
public struct WebhookEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Apple said the token is dead; Herald will not send to it again.
        case deviceDeactivated = "device.deactivated"
        /// A delivery ended as failed (no more retries).
        case deliveryFailed = "delivery.failed"
        /// The app reported an interaction with a delivered push (`action`, and `text` for a reply).
        case interaction
    }

    public var type: Kind
    public var occurredAt: Date
    /// Herald's device id (never the token).
    public var deviceId: UUID
    /// The user's external id, as the backend knows it.
    public var userId: String
    /// Apple's reason, or Herald's (`unregistered`, `bad_device_token`, `DeviceTokenNotForTopic`, …); nil for an
    /// interaction.
    public var reason: String?
    public var deliveryId: UUID?
    public var notificationId: UUID?
    /// An interaction's id, action (`opened`, `dismissed` or the app's identifier), reply text and notification type.
    public var interactionId: UUID?
    public var action: String?
    public var text: String?
    public var notificationType: String?

    public init(
        type: Kind, occurredAt: Date, deviceId: UUID, userId: String, reason: String?, deliveryId: UUID? = nil,
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

extension WebhookEvent {
    /// The event of a recorded interaction.
    public init(_ interaction: Interaction) {
        self.init(
            type: .interaction, occurredAt: interaction.createdAt, deviceId: interaction.deviceID,
            userId: interaction.userID, reason: nil, notificationId: interaction.notificationID)
        interactionId = interaction.id
        action = interaction.action.rawValue
        text = interaction.text
        notificationType = interaction.type
    }
}

/// The webhook's request body: `{"events": [...]}`.
public struct WebhookBatch: Codable, Hashable, Sendable {
    public var events: [WebhookEvent]

    public init(events: [WebhookEvent]) { self.events = events }
}
