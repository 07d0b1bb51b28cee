public import Foundation
public import Postgres

/// One claimed delivery with what happened to it: the unit the store records.
public struct DeliveryAttempt: Sendable {
    public let delivery: ClaimedDelivery
    public let outcome: DeliveryOutcome
    /// Apple's HTTP status, nil when no answer came.
    public let httpStatus: Int?
    /// Apple's reason, or Herald's own (`ConnectionLost`, …).
    public let reason: DeliveryReason?
    /// From writing the request to reading the answer, in seconds; nil when nothing was sent.
    public let latency: Double?
    /// The payload sent (never holds a device token).
    public let payload: PostgresJSON?
    /// A short human explanation for the log.
    public let errorMessage: String?
    /// The backend's feedback id from the content, kept in the log.
    public let feedbackID: String?
    /// When the attempt ended.
    public let finishedAt: Date
    /// Apple's `apns-unique-id` for an accepted push, when it sent one.
    public let uniqueID: String?
    /// Apple's `timestamp` of a refusal (a 410's: when it last knew the token valid), when it sent one.
    public let appleTimestamp: Date?

    public init(
        delivery: ClaimedDelivery, outcome: DeliveryOutcome, httpStatus: Int?, reason: DeliveryReason?,
        latency: Double?,
        payload: PostgresJSON?, errorMessage: String?, feedbackID: String?, finishedAt: Date, uniqueID: String? = nil,
        appleTimestamp: Date? = nil
    ) {
        self.delivery = delivery
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.reason = reason
        self.latency = latency
        self.payload = payload
        self.errorMessage = errorMessage
        self.feedbackID = feedbackID
        self.finishedAt = finishedAt
        self.uniqueID = uniqueID
        self.appleTimestamp = appleTimestamp
    }
}

/// A device the engine deactivated, for the webhook.
public struct DeactivatedDevice: Sendable, Hashable {
    public let deviceID: UUID
    public let userExternalID: String
    public let reason: DeactivationReason
}
