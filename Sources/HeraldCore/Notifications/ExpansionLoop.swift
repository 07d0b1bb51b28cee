import Foundation
public import Logging
public import Postgres
public import ServiceLifecycle
import Tracing

/// Keeps expanding notifications as they fall due: woken at once by `NOTIFY` (or an in-process ``wake()``), by the
/// time of the next scheduled one, and by polling as the safety net for lost notifications.
public struct ExpansionLoop: Service {
    public let expander: NotificationExpander
    private let listenerConfiguration: PostgresConfiguration
    private let doorbell = Doorbell()
    private let pollInterval: Duration
    private let logger: Logger

    public init(
        client: PostgresClient, listenerConfiguration: PostgresConfiguration, pollInterval: Duration = .seconds(1),
        logger: Logger
    ) {
        expander = NotificationExpander(client: client)
        self.listenerConfiguration = listenerConfiguration
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Asks the loop to look for due notifications now.
    public func wake() { doorbell.ring() }

    /// Runs until the task is cancelled or the service group shuts down.
    public func run() async {
        let listener = NotificationListener(
            configuration: listenerConfiguration, channels: [HeraldChannel.notifications],
            subject: "new notifications", logger: logger)
        await cancelWhenGracefulShutdown { [doorbell] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listener.run { _ in doorbell.ring() } }
                await expandUntilCancelled()
                group.cancelAll()
            }
        }
    }

    private func expandUntilCancelled() async {
        let store = NotificationStore(client: expander.client)
        var lastPrune = ContinuousClock.now - .seconds(3600)
        while !Task.isCancelled {
            let seen = doorbell.generation
            var timeout = pollInterval
            do {
                // Idempotency keys are kept 24 hours; removing the old ones now and then keeps the table small.
                if lastPrune.duration(to: .now) > .seconds(600) {
                    lastPrune = .now
                    try await store.pruneIdempotencyKeys()
                }
                while true {
                    let start = DefaultTracerClock.now
                    guard let expansion = try await expander.expandNext() else { break }
                    report(expansion, startedAt: start)
                }
                if let next = try await expander.nextDue() {
                    let wait = max(0, next.timeIntervalSinceNow)
                    timeout = min(timeout, .milliseconds(Int(wait * 1000)))
                }
            } catch {
                if Task.isCancelled { return }
                logger.error("expanding notifications failed", metadata: ["error": "\(error)"])
            }
            await doorbell.wait(after: seen, timeout: timeout)
        }
    }

    /// Logs an expansion and, when its notification was accepted in a trace, adds its span to that trace (the log line
    /// then carries the trace's id).
    private func report(_ expansion: NotificationExpander.Expansion, startedAt start: DefaultTracerClock.Instant) {
        let log = {
            logger.info(
                "expanded notification",
                metadata: [
                    "notification.id": "\(expansion.notificationID)",
                    "deliveries": "\(expansion.deliveries)", "suppressions": "\(expansion.suppressions)",
                ])
        }
        guard let trace = expansion.trace else { return log() }
        let span = startSpan(HeraldSpan.expand, context: trace.context, at: start)
        span.attributes["herald.notification.id"] = expansion.notificationID.uuidString.lowercased()
        span.attributes["herald.deliveries"] = expansion.deliveries
        span.attributes["herald.suppressions"] = expansion.suppressions
        InstrumentationContext.$current.withValue(span.context, operation: log)
        span.end()
    }
}
