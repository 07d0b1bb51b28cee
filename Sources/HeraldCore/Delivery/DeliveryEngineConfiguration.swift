import Foundation

/// How the delivery engine claims, sends and retries. Defaults suit one `herald` process on a small
/// machine; every field is documented with its default.
public struct DeliveryEngineConfiguration: Sendable {
    /// Names this engine in `deliveries.claimed_by`; unique per process. Default: host, pid and a random suffix.
    public var workerID: String
    /// The app's bundle id: the topic for devices registered without one. Required to send anything.
    public var bundleID: String?
    /// The signing key's id, named in pause logs. Default empty.
    public var keyID: String
    /// Claim loops running side by side. Default 4.
    public var workers: Int
    /// Deliveries claimed per batch. Default 500.
    public var batchSize: Int
    /// How long a claim is held before other workers may take it over. Must exceed the APNs request
    /// timeout plus the time to record a batch, and be at least a second (the rescuer relies on it).
    /// Default 2 minutes.
    public var lease: Duration
    /// How often idle workers look for due deliveries when no `NOTIFY` came (retries come due this way). Default 1 s.
    public var pollInterval: Duration
    /// How often expired leases are returned to `pending`. Default 10 s.
    public var rescueInterval: Duration
    /// How often the outbox depth is measured. Default 5 s.
    public var depthInterval: Duration
    /// On shutdown, how long sends in flight may take before they are cancelled and released. Default 10 s.
    public var shutdownGracePeriod: Duration
    /// Pushes sent and not yet recorded at once, across the workers: the crash window, since a process killed now
    /// sends these again. It follows the measured rate and round trip (``InFlightLimit``) between a floor (default
    /// 64) and a ceiling (default 2,000, and never more than ``workers`` × ``batchSize``), with headroom 4.
    public var inFlight: InFlightLimit.Bounds
    /// Retry and attempt limits.
    public var policy: DeliveryPolicy
    /// The deactivation burst guard's thresholds.
    public var burstGuard: BurstGuard
    /// How long sending pauses after Apple refuses the key or team, doubling per refused probe. Default 1 minute
    /// up to 30 minutes.
    public var credentialBackoff: SendHealth.Backoff

    public init(
        workerID: String = DeliveryEngineConfiguration.defaultWorkerID(), bundleID: String?, keyID: String = "",
        workers: Int = 4, batchSize: Int = 500, lease: Duration = .seconds(120), pollInterval: Duration = .seconds(1),
        rescueInterval: Duration = .seconds(10), depthInterval: Duration = .seconds(5),
        shutdownGracePeriod: Duration = .seconds(10), inFlight: InFlightLimit.Bounds = InFlightLimit.Bounds(),
        policy: DeliveryPolicy = DeliveryPolicy(),
        burstGuard: BurstGuard = BurstGuard(),
        credentialBackoff: SendHealth.Backoff = SendHealth.defaultCredentialBackoff
    ) {
        self.workerID = String(workerID.prefix(200))
        self.bundleID = bundleID
        self.keyID = keyID
        self.workers = max(1, workers)
        self.batchSize = max(1, batchSize)
        self.lease = lease
        self.pollInterval = pollInterval
        self.rescueInterval = rescueInterval
        self.depthInterval = depthInterval
        self.shutdownGracePeriod = shutdownGracePeriod
        self.inFlight = inFlight
        self.policy = policy
        self.burstGuard = burstGuard
        self.credentialBackoff = credentialBackoff
    }

    /// ``inFlight`` with its ceiling at most what the workers claim at once.
    var sendWindowBounds: InFlightLimit.Bounds {
        InFlightLimit.Bounds(
            floor: inFlight.floor, ceiling: min(inFlight.ceiling, workers * batchSize), headroom: inFlight.headroom)
    }

    /// `host:pid:random`, so claims name the process that holds them.
    public static func defaultWorkerID() -> String {
        let random = UUID().uuidString.prefix(8).lowercased()
        return "\(ProcessInfo.processInfo.hostName.prefix(100)):\(ProcessInfo.processInfo.processIdentifier):\(random)"
    }
}
