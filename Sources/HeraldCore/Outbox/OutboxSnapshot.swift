public import Foundation

/// What waits to be sent and who sends it, as an operator reads it (`GET /api/v1/outbox`): the open deliveries by
/// lane and state, the scheduled notifications, how long the oldest due delivery has waited, the rate per app, and
/// the state of each signing key and delivering process.
public struct OutboxSnapshot: Sendable, Hashable {
    /// Open deliveries of one lane in one state: `pending` (never tried), `retrying` (tried, due again),
    /// `deferred` (held by quiet hours) or `sending` (claimed by a process).
    public struct DeliveryCount: Sendable, Hashable {
        public var lane: DeliveryLane
        public var state: String
        public var count: Int
    }

    /// Deliveries an app finished (final log rows) in the last whole minute, per second.
    public struct AppRate: Sendable, Hashable {
        /// Nil for devices registered before any app was defined.
        public var appID: String?
        public var deliveriesPerSecond: Double
    }

    /// A signing key not retired, and the last time the router paused it because Apple refused it.
    public struct SigningKey: Sendable, Hashable {
        public var teamID: String
        public var keyID: String
        /// `active` or `retiring`.
        public var state: String
        public var pausedUntil: Date?
        public var lastRefusalReason: String?
        public var lastRefusedAt: Date?
    }

    /// A delivering process, from its heartbeat (Migrations/0044).
    public struct Worker: Sendable, Hashable {
        public var worker: String
        public var host: String
        public var startedAt: Date
        public var lastSeenAt: Date
        /// Whether it wrote its heartbeat within ``OutboxSnapshot/workerSilence``.
        public var isAlive: Bool
        /// Pushes it sent and has not yet recorded, of every app: nil in a snapshot confined to one app.
        public var inFlight: Int?
        /// Open deliveries it holds claimed (in the snapshot's app, when confined to one).
        public var claimed: Int
        /// Its sending pause after Apple refused the service or its credentials, and why.
        public var pausedUntil: Date?
        public var pauseReason: String?
        /// Pauses in a row without a normal answer between them; each is longer.
        public var consecutivePauses: Int
    }

    /// The states ``DeliveryCount`` reports, in order.
    public static let deliveryStates = ["pending", "retrying", "deferred", "sending"]
    /// A process whose heartbeat is older than this is taken for dead.
    public static let workerSilence: TimeInterval = 60

    /// What waits: the part the engine's gauges carry too.
    public struct Queue: Sendable, Hashable {
        /// Every lane and state, zeros included.
        public var deliveries: [DeliveryCount]
        /// Scheduled notifications (not yet expanded) per lane, zeros included.
        public var scheduled: [DeliveryLane: Int]
        /// How long the oldest delivery that is due and not yet sent has waited; nil when none is due.
        public var oldestPendingSeconds: Double?
    }

    public var at: Date
    public var queue: Queue
    public var appRates: [AppRate]
    public var signingKeys: [SigningKey]
    public var workers: [Worker]
}
