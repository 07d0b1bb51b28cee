public import APNsCore
public import Foundation

/// A push ready to be addressed to a device: everything but the token and apns-id, built once per notification,
/// variant and appearance.
public struct PushTemplate: Sendable {
    public let payloadJSON: Data
    public let pushType: PushType
    public let priority: PushPriority
    public let expiration: PushExpiration?
    public let collapseID: CollapseID?
    /// The topic the push goes to whatever its device's: a relayed push's own; nil for the device's (or the default
    /// bundle id).
    public let topic: String?

    /// The custom key naming the notification in every alert's payload: the app reports what the user did with it
    /// (`POST /api/v1/notifications/{id}/interactions`) by this id, which a collapse id of the backend's hides.
    public static let notificationIDKey = "heraldNotificationId"

    /// Builds the push of `message`'s `payload` for a user with `appearance`.
    /// - Parameters:
    ///   - notificationID: Names the push on the device (`apns-collapse-id`) when the message has no collapse id of
    ///     its own, so a copy resent after a crash replaces the first instead of showing twice.
    ///   - expiresAt: The notification's `expires_at`, sent as `apns-expiration`. Without one, an event's push
    ///     expires at once (`0`, the push plan's `.immediately`: news of feedback is worth nothing once stale), and
    ///     any other push takes Apple's default.
    ///   - payloadLimit: Bytes the payload may take; the body is shortened to fit. Default: the push type's limit.
    /// - Throws: ``PayloadError`` when the payload cannot fit.
    public init(
        message: NotificationMessage, payload: Payload, appearance: PushAppearance, notificationID: UUID,
        expiresAt: Date?, payloadLimit: Int? = nil
    ) throws(PayloadError) {
        let limit = min(payloadLimit ?? message.pushType.payloadLimit, message.pushType.payloadLimit)
        var addressed = appearance.applied(to: payload)
        if message.pushType == .alert {
            addressed.custom[Self.notificationIDKey] = .string(notificationID.uuidString.lowercased())
        }
        payloadJSON = try addressed.fitted(toLimit: limit).json
        pushType = message.pushType
        priority = message.priority
        expiration = expiresAt.map { .at($0) } ?? (message.event == nil ? nil : .immediately)
        collapseID = message.collapseID ?? CollapseID(notificationID.uuidString.lowercased())
        topic = nil
    }

    /// The push an APNs client sent through the ingress, as it sent it: its payload bytes, push type, priority,
    /// expiration and collapse id, to its own topic. Nothing is added (no notification id, no collapse id of
    /// Herald's), shaped by the user's appearance or shortened: the ingress checked it against Apple's rules before
    /// storing it.
    public init(relayed push: RelayedPush, message: NotificationMessage) {
        payloadJSON = Data(push.payload.utf8)
        pushType = message.pushType
        priority = message.priority
        expiration = push.expiration.map {
            $0 == 0 ? .immediately : .at(Date(timeIntervalSince1970: TimeInterval($0)))
        }
        collapseID = message.collapseID
        topic = push.topic
    }

    /// The request for one device. The payload was checked when the template was built, so only the
    /// topic and the priority can still be refused.
    public func request(apnsID: APNsID, deviceToken: DeviceToken, bundleID: String) throws(PushRequestError)
        -> PushRequest
    {
        try PushRequest(
            apnsID: apnsID, deviceToken: deviceToken, bundleID: bundleID, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, payloadJSON: payloadJSON)
    }
}
