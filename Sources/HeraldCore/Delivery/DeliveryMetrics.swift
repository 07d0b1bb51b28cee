import Synchronization

/// The delivery engine's counters and gauges, kept in memory for `/metrics` to render.
///
/// Herald-owned so the engine needs no metrics backend; HeraldServer reads ``snapshot()`` and writes
/// the Prometheus text. Thread-safe.
public final class DeliveryMetrics: Sendable {
    /// Upper bounds (seconds) of the APNs latency histogram's buckets; the last bucket is +Inf.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// A consistent copy of every value.
    public struct Snapshot: Sendable, Equatable {
        /// Pushes Apple accepted.
        public var sent = 0
        /// Deliveries that finally failed, by reason (Apple's, or Herald's such as `ConnectionLost`).
        public var failedByReason: [String: Int] = [:]
        /// Attempts that will be retried, by reason.
        public var retriesByReason: [String: Int] = [:]
        /// Devices deactivated because Apple said their token is dead.
        public var deactivatedDevices = 0
        /// Deactivations the burst guard held back.
        public var withheldDeactivations = 0
        /// Deliveries that expired or were canceled before sending.
        public var expired = 0
        public var canceled = 0
        /// Cumulative counts per ``DeliveryMetrics/latencyBuckets`` bound, plus +Inf last.
        public var latencyBucketCounts: [Int] = Array(repeating: 0, count: DeliveryMetrics.latencyBuckets.count + 1)
        public var latencySum: Double = 0
        public var latencyCount = 0
        /// Due `pending` deliveries at the last measurement.
        public var outboxDepth = 0
        /// Deliveries claimed and not yet recorded.
        public var inFlight = 0
        /// APNs connections configured across environments.
        public var connections = 0
        /// Signing keys paused after a credential refusal (0 or 1 per engine).
        public var pausedKeys = 0
        /// How many times a key was paused.
        public var keyPauses = 0

        public init() {}

        /// The total of ``failedByReason``.
        public var failed: Int { failedByReason.values.reduce(0, +) }
        /// The total of ``retriesByReason``.
        public var retries: Int { retriesByReason.values.reduce(0, +) }
    }

    private let storage = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot { storage.withLock { $0 } }

    /// Counts the outcomes of one recorded batch and the APNs latencies (seconds) of its answers.
    func recordBatch(_ outcomes: [DeliveryOutcome], latencies: [Double]) {
        storage.withLock { metrics in
            for outcome in outcomes {
                switch outcome {
                case .sent: metrics.sent += 1
                case .deactivateDevice: metrics.deactivatedDevices += 1
                case .retry(_, let reason): metrics.retriesByReason[Self.metricReason(reason), default: 0] += 1
                case .retryInOtherEnvironment: metrics.retriesByReason["BadDeviceToken", default: 0] += 1
                case .retryShortened: metrics.retriesByReason["PayloadTooLarge", default: 0] += 1
                case .fail(let reason): metrics.failedByReason[reason, default: 0] += 1
                case .expire: metrics.expired += 1
                case .cancel: metrics.canceled += 1
                case .pauseKey, .release: break
                }
                if case .retry(_, let reason) = outcome, reason.hasSuffix(Self.withheldSuffix) {
                    metrics.withheldDeactivations += 1
                }
            }
            for latency in latencies {
                let index = Self.latencyBuckets.firstIndex { latency <= $0 } ?? Self.latencyBuckets.count
                for bucket in index..<metrics.latencyBucketCounts.count { metrics.latencyBucketCounts[bucket] += 1 }
                metrics.latencySum += latency
                metrics.latencyCount += 1
            }
        }
    }

    func adjustInFlight(by delta: Int) { storage.withLock { $0.inFlight += delta } }
    func setOutboxDepth(_ depth: Int) { storage.withLock { $0.outboxDepth = depth } }
    /// Sets the APNs connection gauge (the owner of the pools knows their size).
    public func setConnections(_ count: Int) { storage.withLock { $0.connections = count } }

    func setPaused(_ paused: Bool) {
        storage.withLock { metrics in
            if paused && metrics.pausedKeys == 0 { metrics.keyPauses += 1 }
            metrics.pausedKeys = paused ? 1 : 0
        }
    }

    static let withheldSuffix = "(deactivation withheld by burst guard)"

    /// Retry reasons as metric labels: a withheld deactivation counts under its Apple reason.
    private static func metricReason(_ reason: String) -> String {
        reason.hasSuffix(withheldSuffix) ? String(reason.prefix { $0 != " " }) : reason
    }
}
