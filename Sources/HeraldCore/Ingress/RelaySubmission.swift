public import APNsCore
public import Foundation

/// One push an APNs client sent to the ingress, checked and authorized, ready to be stored: the notification of type
/// `apns` and its one delivery, both with the push's `apns-id` as their id.
public struct RelaySubmission: Sendable {
    /// The client's `apns-id`, or one the ingress made: the id of the notification and of its delivery, so Herald's
    /// log, Apple's answer and the client's records name the push alike.
    public var id: APNsID
    public var token: DeviceToken
    /// The app of the push's topic.
    public var app: App
    /// The push as the client sent it (``NotificationMessage/relayed``).
    public var message: NotificationMessage
    /// After this Herald stops trying: the client's `apns-expiration` when it lies ahead; nil for none.
    public var expiresAt: Date?
    /// The API key that authenticated the client, when it sent one instead of a provider token.
    public var apiKeyID: UUID?

    public init(
        id: APNsID, token: DeviceToken, app: App, message: NotificationMessage, expiresAt: Date?, apiKeyID: UUID?
    ) {
        self.id = id
        self.token = token
        self.app = app
        self.message = message
        self.expiresAt = expiresAt
        self.apiKeyID = apiKeyID
    }
}

/// A relayed push stored durably: from here on Herald delivers it whatever happens to the client's stream.
public struct RelayReceipt: Sendable, Equatable {
    /// The notification's (and its delivery's) id, the push's `apns-id`.
    public var id: UUID
    /// When it was stored, by the database's clock: its log rows are written after it.
    public var acceptedAt: Date
}

/// How a relayed push ended, from its final log row.
public struct RelayOutcome: Sendable, Equatable {
    public var status: DeliveryLogStatus
    /// Apple's HTTP status; nil when Apple gave no final answer (Herald gave up, or the push expired or was canceled).
    public var httpStatus: Int?
    /// Apple's reason or Herald's (``DeliveryReason``).
    public var reason: String?
    /// Apple's `apns-unique-id` of an accepted push.
    public var uniqueID: String?
    /// Apple's `timestamp` of a 410.
    public var appleTimestamp: Date?

    public init(
        status: DeliveryLogStatus, httpStatus: Int?, reason: String?, uniqueID: String?, appleTimestamp: Date?
    ) {
        self.status = status
        self.httpStatus = httpStatus
        self.reason = reason
        self.uniqueID = uniqueID
        self.appleTimestamp = appleTimestamp
    }
}

/// Why a push cannot be stored.
public enum RelayConflict: Error, Equatable, CustomStringConvertible, Sendable {
    /// The `apns-id` already names another push (another token or app), so it cannot name this one.
    case apnsIDInUse
    /// The token is registered in another app than the push's topic names.
    case tokenOfAnotherApp

    public var description: String {
        switch self {
        case .apnsIDInUse: "the apns-id already names another push"
        case .tokenOfAnotherApp: "the device token is registered in another app"
        }
    }
}
