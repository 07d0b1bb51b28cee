import Foundation
public import Logging
public import Postgres

/// Keeps expanding notifications as they fall due: woken at once by `NOTIFY` (or an in-process ``wake()``), by the
/// time of the next scheduled one, and by polling as the safety net for lost notifications.
public struct ExpansionLoop: Sendable {
    public let expander: NotificationExpander
    private let listenerConfiguration: PostgresConfiguration
    private let signal = WakeSignal()
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
    public func wake() async { await signal.signal() }

    /// Runs until the task is cancelled.
    public func run() async throws {
        let listener = try PostgresListener(configuration: listenerConfiguration, logger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [signal, logger] in
                while !Task.isCancelled {
                    do {
                        try await listener.listen(on: HeraldChannel.notifications) { notifications in
                            for await _ in notifications { await signal.signal() }
                        }
                    } catch {
                        logger.warning("listening for notifications failed", metadata: ["error": "\(error)"])
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            await expandUntilCancelled()
            group.cancelAll()
            listener.shutdown()
        }
        // The session is closed before the loop returns, so a process that exits next does not race it.
        await listener.close()
    }

    private func expandUntilCancelled() async {
        let store = NotificationStore(client: expander.client)
        var lastPrune = ContinuousClock.now - .seconds(3600)
        while !Task.isCancelled {
            var timeout = pollInterval
            do {
                // Idempotency keys are kept 24 hours; removing the old ones now and then keeps the table small.
                if lastPrune.duration(to: .now) > .seconds(600) {
                    lastPrune = .now
                    try await store.pruneIdempotencyKeys()
                }
                for expansion in try await expander.expandDue() {
                    logger.info(
                        "expanded notification",
                        metadata: [
                            "notification.id": "\(expansion.notificationID)",
                            "deliveries": "\(expansion.deliveries)", "suppressions": "\(expansion.suppressions)",
                        ])
                }
                if let next = try await expander.nextDue() {
                    let wait = max(0, next.timeIntervalSinceNow)
                    timeout = min(timeout, .milliseconds(Int(wait * 1000)))
                }
            } catch {
                if Task.isCancelled { return }
                logger.error("expanding notifications failed", metadata: ["error": "\(error)"])
            }
            await signal.wait(timeout: timeout)
        }
    }
}
