import APNsCore
public import CoreMetrics
import Synchronization

/// The delivery engine's counters, gauges and latency histogram, recorded through swift-metrics into the factory the
/// process gives it: the Prometheus registry `/metrics` serves in `herald serve` and `herald dev`, none in `herald
/// worker` (it serves no HTTP), a test factory in tests. The names and labels are the ones Herald's dashboards read.
public final class DeliveryMetrics: Sendable {
    /// The metric names.
    public enum Name {
        public static let sent = "herald_deliveries_sent_total"
        public static let failed = "herald_deliveries_failed_total"
        public static let retries = "herald_delivery_retries_total"
        public static let deactivated = "herald_devices_deactivated_total"
        public static let withheld = "herald_deactivations_withheld_total"
        public static let expired = "herald_deliveries_expired_total"
        public static let canceled = "herald_deliveries_canceled_total"
        public static let keyPauses = "herald_key_pauses_total"
        public static let latency = "herald_apns_latency_seconds"
        public static let outboxDepth = "herald_outbox_depth"
        public static let inFlight = "herald_deliveries_in_flight"
        public static let sendWindow = "herald_delivery_send_window"
        public static let connections = "herald_apns_connections"
        public static let pausedKeys = "herald_paused_keys"
        public static let backoff = "herald_apns_backoff_seconds"
        public static let outboxDeliveries = "herald_outbox_deliveries"
        public static let oldestPending = "herald_outbox_oldest_pending_seconds"
        public static let scheduled = "herald_outbox_scheduled_notifications"
    }

    /// Upper bounds of the APNs latency histogram's buckets, from 5 ms to 10 s.
    public static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// Where the metrics are recorded.
    package let factory: any MetricsFactory
    private let sent: [DeliveryLane: Counter]
    private let latency: [DeliveryLane: CoreMetrics.Timer]
    private let deactivated: Counter
    private let withheld: Counter
    private let expired: Counter
    private let canceled: Counter
    private let keyPauses: Counter
    private let outboxDepth: Gauge
    private let inFlight: Meter
    private let sendWindow: Gauge
    private let connections: Gauge
    private let pausedKeys: Gauge
    private let backoff: Gauge
    private let paused = Mutex(false)

    /// Creates every metric at zero, so a scrape shows them before the first delivery.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        sent = Dictionary(
            uniqueKeysWithValues: DeliveryLane.allCases.map {
                ($0, Counter(label: Name.sent, dimensions: [("lane", $0.rawValue)], factory: factory))
            })
        latency = Dictionary(
            uniqueKeysWithValues: DeliveryLane.allCases.map {
                ($0, Timer(label: Name.latency, dimensions: [("lane", $0.rawValue)], factory: factory))
            })
        deactivated = Counter(label: Name.deactivated, factory: factory)
        withheld = Counter(label: Name.withheld, factory: factory)
        expired = Counter(label: Name.expired, factory: factory)
        canceled = Counter(label: Name.canceled, factory: factory)
        keyPauses = Counter(label: Name.keyPauses, factory: factory)
        outboxDepth = Gauge(label: Name.outboxDepth, factory: factory)
        inFlight = Meter(label: Name.inFlight, factory: factory)
        sendWindow = Gauge(label: Name.sendWindow, factory: factory)
        connections = Gauge(label: Name.connections, factory: factory)
        pausedKeys = Gauge(label: Name.pausedKeys, factory: factory)
        backoff = Gauge(label: Name.backoff, factory: factory)
        for gauge in [outboxDepth, sendWindow, connections, pausedKeys, backoff] { gauge.record(0) }
        inFlight.set(0)
    }

    /// One recorded attempt as the metrics count it.
    struct Recorded {
        var lane: DeliveryLane
        var outcome: DeliveryOutcome
        /// Apple's answer time in seconds; nil when nothing was sent.
        var latency: Double?
    }

    /// Counts the outcomes of one recorded batch and the APNs latencies of its answers, by lane. Counts are summed
    /// per batch first, so a batch touches each series once.
    func recordBatch(_ attempts: [Recorded]) {
        var tallies: [DeliveryLane: BatchTally] = [:]
        for attempt in attempts {
            tallies[attempt.lane, default: BatchTally()].count(attempt.outcome)
            if let seconds = attempt.latency { latency[attempt.lane]?.recordNanoseconds(Int64(seconds * 1e9)) }
        }
        for (lane, tally) in tallies {
            sent[lane]?.increment(by: tally.sent)
            deactivated.increment(by: tally.deactivated)
            withheld.increment(by: tally.withheld)
            expired.increment(by: tally.expired)
            canceled.increment(by: tally.canceled)
            for (reason, count) in tally.failedByReason {
                Counter(
                    label: Name.failed, dimensions: [("lane", lane.rawValue), ("reason", reason)], factory: factory
                ).increment(by: count)
            }
            for (reason, count) in tally.retriesByReason {
                Counter(label: Name.retries, dimensions: [("reason", reason)], factory: factory).increment(by: count)
            }
        }
    }

    func adjustInFlight(by delta: Int) {
        if delta >= 0 { inFlight.increment(by: Double(delta)) } else { inFlight.decrement(by: Double(-delta)) }
    }
    func setOutboxDepth(_ depth: Int) { outboxDepth.record(depth) }

    /// Sets the operations view's gauges (``OutboxSnapshot/Queue``): open deliveries by lane and state, scheduled
    /// notifications by lane, and the oldest due delivery's wait (0 when none is due).
    func setOutbox(_ queue: OutboxSnapshot.Queue) {
        for entry in queue.deliveries {
            Gauge(
                label: Name.outboxDeliveries, dimensions: [("lane", entry.lane.rawValue), ("state", entry.state)],
                factory: factory
            ).record(entry.count)
        }
        for (lane, count) in queue.scheduled {
            Gauge(label: Name.scheduled, dimensions: [("lane", lane.rawValue)], factory: factory).record(count)
        }
        Gauge(label: Name.oldestPending, factory: factory).record(queue.oldestPendingSeconds ?? 0)
    }
    /// Sets how many pushes may be sent and not yet recorded now (``SendWindow``).
    func setSendWindow(_ limit: Int) { sendWindow.record(limit) }
    /// Sets the APNs connection gauge (the owner of the pools knows their size).
    public func setConnections(_ count: Int) { connections.record(count) }

    /// Sets the length of the sending pause Apple's service refusals started; 0 when sending normally.
    func setBackoff(_ pause: Duration) { backoff.record(pause.seconds) }

    func setPaused(_ isPaused: Bool) {
        let newlyPaused = paused.withLock { paused in
            defer { paused = isPaused }
            return isPaused && !paused
        }
        if newlyPaused { keyPauses.increment() }
        pausedKeys.record(isPaused ? 1 : 0)
    }
}

/// One batch's outcomes, counted.
private struct BatchTally {
    var sent: Int64 = 0
    var deactivated: Int64 = 0
    var withheld: Int64 = 0
    var expired: Int64 = 0
    var canceled: Int64 = 0
    var failedByReason: [String: Int64] = [:]
    var retriesByReason: [String: Int64] = [:]

    mutating func count(_ outcome: DeliveryOutcome) {
        switch outcome {
        case .sent: sent += 1
        case .deactivateDevice: deactivated += 1
        case .retry(_, let reason):
            retriesByReason[reason.metricLabel, default: 0] += 1
            if reason.isWithheldDeactivation { withheld += 1 }
        case .retryInOtherEnvironment: retriesByReason[APNsReason.badDeviceToken.name, default: 0] += 1
        case .retryShortened: retriesByReason[APNsReason.payloadTooLarge.name, default: 0] += 1
        case .fail(let reason): failedByReason[reason.text, default: 0] += 1
        case .expire: expired += 1
        case .cancel: canceled += 1
        case .pauseKey, .release: break
        }
    }
}
