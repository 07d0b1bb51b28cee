public import APNsCore
public import Foundation

/// One delivery a worker holds, with what sending it needs: its notification's content, its device and
/// its user's push appearance, all read by the claim statement.
public struct ClaimedDelivery: Sendable {
    public let id: UUID
    public let notificationID: UUID
    public let userID: UUID
    public let deviceID: UUID
    /// The environment for this attempt (the device's, or the other one for a BadDeviceToken retry).
    public let environment: APNsEnvironment
    /// Attempts so far, this one included.
    public let attempt: Int
    public let previousReason: DeliveryReason?
    /// When the row became due; the start of its row-to-APNs latency.
    public let dueAt: Date
    /// Its notification, read once per batch for all its deliveries, after the claim.
    public internal(set) var notification: ClaimedNotification
    /// The token's hex digits. Never logged.
    public let deviceToken: String
    public let deviceEnvironment: APNsEnvironment
    public let deviceTopic: String?
    public let deviceActive: Bool
    /// The device's owner now; differs from ``userID`` when the token moved to another user.
    public let deviceUserID: UUID
    public let deviceRegisteredAt: Date
    /// The device's app now, written into the attempt's log row so its statistics need not look the device up.
    public let deviceAppID: UUID?
    /// Whether the row is a device's own token, not one of its service tokens (VoIP, widgets, Live Activities, …).
    public let isDeviceToken: Bool
    public let userExternalID: String
    public let appearance: PushAppearance
    /// Which of the notification's rendered contents this recipient gets (`default`, or `voter` for the voters
    /// of a status change).
    public let variant: PayloadVariant
    /// The line it waited in, for the metrics.
    public let lane: DeliveryLane
    /// Where the claimed row version is stored, so recording the result finds it without an index.
    let rowLocation: RowLocation
    /// The trace of the request that caused it, when tracing was on; its push's spans join it.
    public let trace: TraceCarrier?

    public var notificationType: String { notification.type }
    public var notificationCanceled: Bool { notification.canceled }
    public var expiresAt: Date? { notification.expiresAt }
    public var projectID: UUID? { notification.projectID }
    /// Whether it is a push an APNs client sent through the ingress (``NotificationMessage/relayed``).
    public var isRelayed: Bool { (try? notification.message.get())?.relayed != nil }

    /// The facts ``DeliveryPolicy`` decides on.
    public var facts: DeliveryFacts {
        DeliveryFacts(
            attempt: attempt, environment: environment, deviceEnvironment: deviceEnvironment,
            deviceRegisteredAt: deviceRegisteredAt, previousReason: previousReason, expiresAt: expiresAt,
            isDeviceToken: isDeviceToken)
    }
}

/// A row version's physical place in its table: PostgreSQL's `ctid`, `(block,offset)`, as text. Valid until the
/// row is updated again.
struct RowLocation: Sendable, Hashable {
    let ctid: String
}

/// What the engine needs of a notification, read once per batch however many of its deliveries it holds.
public struct ClaimedNotification: Sendable {
    public let id: UUID
    public let type: String
    /// What it sends, or why the stored content cannot be read (its deliveries then fail as `InvalidContent`).
    public let message: Result<NotificationMessage, UnreadableContent>
    public let canceled: Bool
    public let expiresAt: Date?
    public let projectID: UUID?

    /// Stands in for a notification deleted while its deliveries were claimed: nothing is sent.
    static func vanished(_ id: UUID) -> ClaimedNotification {
        ClaimedNotification(
            id: id, type: "unknown", message: .failure(UnreadableContent(description: "the notification was deleted")),
            canceled: true, expiresAt: nil, projectID: nil)
    }
}

/// Why a notification's stored content cannot become a push, for the delivery log.
public struct UnreadableContent: Error, CustomStringConvertible, Sendable {
    public let description: String
}
