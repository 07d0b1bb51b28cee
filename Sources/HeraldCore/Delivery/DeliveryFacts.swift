public import APNsCore
public import Foundation

/// What the outcome of one attempt depends on besides Apple's answer: read from the claimed row.
public struct DeliveryFacts: Hashable, Sendable {
    /// Attempts so far, this one included.
    public var attempt: Int
    /// The environment this attempt went to.
    public var environment: APNsEnvironment
    /// The environment the device is registered in.
    public var deviceEnvironment: APNsEnvironment
    /// When the device token was last (re-)registered.
    public var deviceRegisteredAt: Date
    /// The reason recorded by the previous attempt, if any (`PayloadTooLarge` means the body was already shortened).
    public var previousReason: DeliveryReason?
    /// The notification's expiration, if any.
    public var expiresAt: Date?
    /// Whether the push went to a device's own token, rather than a token of one of its services (VoIP, widgets,
    /// Live Activities, …).
    public var isDeviceToken: Bool

    public init(
        attempt: Int, environment: APNsEnvironment, deviceEnvironment: APNsEnvironment, deviceRegisteredAt: Date,
        previousReason: DeliveryReason? = nil, expiresAt: Date? = nil, isDeviceToken: Bool = true
    ) {
        self.attempt = attempt
        self.environment = environment
        self.deviceEnvironment = deviceEnvironment
        self.deviceRegisteredAt = deviceRegisteredAt
        self.previousReason = previousReason
        self.expiresAt = expiresAt
        self.isDeviceToken = isDeviceToken
    }

    /// Whether this attempt is the retry in the other environment after a BadDeviceToken.
    public var isEnvironmentRetry: Bool { environment != deviceEnvironment }

    /// Whether the body was already shortened after a 413.
    public var wasShortened: Bool { previousReason == .apple(.payloadTooLarge) }
}
