import Foundation
import Logging
import Synchronization

extension DeliveryEngine {
    /// How often the process writes its heartbeat (``DeliveryWorkerStore``).
    static let heartbeatInterval: Duration = .seconds(5)

    /// Writes the process's row every ``heartbeatInterval`` until cancelled: what it holds in flight and its sending
    /// pause, for the operations view. A failed write is logged at debug level; the next beat tries again.
    func heartbeatLoop(startedAt: Date) async {
        let workers = DeliveryWorkerStore(client: store.client)
        while !Task.isCancelled {
            do {
                try await workers.record(beat(startedAt: startedAt))
            } catch {
                if !Task.isCancelled {
                    logger.debug("writing the heartbeat failed", metadata: [DeliveryMetadataKey.error: "\(error)"])
                }
            }
            try? await Task.sleep(for: Self.heartbeatInterval)
        }
    }

    /// Deletes the process's row as it stops.
    func removeHeartbeat() async {
        try? await DeliveryWorkerStore(client: store.client).remove(configuration.workerID)
    }

    private func beat(startedAt: Date) -> DeliveryWorkerStore.Beat {
        let now = self.now()
        let (health, reason) = state.withLock { ($0.health, $0.pausedReason) }
        var pausedUntil: Date?
        if case .paused(let until) = health.state, until > now { pausedUntil = until }
        return DeliveryWorkerStore.Beat(
            worker: configuration.workerID, host: ProcessInfo.processInfo.hostName, startedAt: startedAt,
            inFlight: window.inUse, pausedUntil: pausedUntil,
            pauseReason: pausedUntil == nil ? nil : reason.map { "\($0)" } ?? "service refused",
            consecutivePauses: health.consecutivePauses)
    }
}
