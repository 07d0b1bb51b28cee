public import APNsCore

/// Why an attempt ended as it did, as `deliveries.last_reason` and the log's `apns_reason` record it: Apple's reason
/// by its name, or one of Herald's own for what Apple did not decide. Herald's own are defined here once; SQL that
/// writes one takes it as a bound value or through ``sqlLiteral``.
public struct DeliveryReason: Hashable, Sendable, CustomStringConvertible {
    /// The recorded text.
    public let text: String

    private init(_ text: String) { self.text = text }

    /// A reason as a row recorded it.
    init(recorded text: String) { self.text = text }

    /// Apple's answer.
    public static func apple(_ reason: APNsReason) -> DeliveryReason { DeliveryReason(reason.name) }

    /// Apple's answer would have deactivated the device, but the burst guard kept it for retry.
    public static func withheld(_ reason: APNsReason) -> DeliveryReason {
        DeliveryReason("\(reason.name) \(withheldSuffix)")
    }

    // Before sending.
    public static let notificationCanceled = DeliveryReason("NotificationCanceled")
    public static let deviceInactive = DeliveryReason("DeviceInactive")
    public static let deviceMovedToAnotherUser = DeliveryReason("DeviceMovedToAnotherUser")
    public static let keyPaused = DeliveryReason("KeyPaused")
    public static let invalidContent = DeliveryReason("InvalidContent")
    public static let missingTopic = DeliveryReason("MissingTopic")
    public static let invalidDeviceToken = DeliveryReason("InvalidDeviceToken")
    public static let expired = DeliveryReason("Expired")
    /// Another delivery deactivated the device while this one waited.
    public static let deviceDeactivated = DeliveryReason("DeviceDeactivated")

    // No answer from Apple.
    public static let timedOut = DeliveryReason("TimedOut")
    public static let cancelled = DeliveryReason("Cancelled")
    public static let shutDown = DeliveryReason("ShutDown")
    public static let connectionFailed = DeliveryReason("ConnectionFailed")
    public static let providerTokenUnavailable = DeliveryReason("ProviderTokenUnavailable")
    public static let noSigningKey = DeliveryReason("NoSigningKey")
    public static let connectionLost = DeliveryReason("ConnectionLost")

    // The push itself is what APNs cannot take.
    /// A header value (topic or collapse id) holds a control character or surrounding whitespace: not sent.
    public static let unsafeHeaderValue = DeliveryReason("UnsafeHeaderValue")
    /// Sent alone after being in flight at consecutive connection errors, it broke its connection again.
    public static let connectionRefusedRequest = DeliveryReason("ConnectionRefusedRequest")

    /// Herald's reason for an attempt that got no answer.
    public static func noAnswer(_ failure: TransportFailure) -> DeliveryReason {
        switch failure {
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .shutDown: .shutDown
        case .connectionFailed: .connectionFailed
        case .credentialsUnavailable: .providerTokenUnavailable
        case .noSigningKey: .noSigningKey
        case .protocolError: .connectionLost
        case .unsafeHeaderValue: .unsafeHeaderValue
        case .connectionRefusedRequest: .connectionRefusedRequest
        }
    }

    private static let withheldSuffix = "(deactivation withheld by burst guard)"

    /// Whether this is a deactivation the burst guard withheld.
    public var isWithheldDeactivation: Bool { text.hasSuffix(Self.withheldSuffix) }

    /// The reason without the burst guard's note, for metric labels.
    public var metricLabel: String { isWithheldDeactivation ? String(text.prefix { $0 != " " }) : text }

    public var description: String { text }
}
