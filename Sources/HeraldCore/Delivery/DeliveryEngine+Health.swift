import APNsCore
import Foundation
import Logging
import Synchronization

extension DeliveryEngine {
    /// How many deliveries a worker may claim now (see ``SendHealth``): a full batch, one to probe (only one worker
    /// probes at a time), or none, with the time left in the pause.
    func claimLimit() -> (limit: Int, isProbe: Bool, pause: Duration?) {
        let now = Date()
        return state.withLock { state in
            let limit = state.health.claimLimit(batchSize: configuration.batchSize, at: now)
            guard limit > 0 else { return (0, false, state.health.remainingPause(at: now)) }
            guard state.health.state == .probing else { return (limit, false, nil) }
            // The others wait for the probe's answer (a normal one rings the doorbell) or their next poll.
            if state.probing { return (0, false, nil) }
            state.probing = true
            return (1, true, nil)
        }
    }

    /// The probing worker is done, answered or with nothing to send. It does not ring the doorbell: a probe Apple
    /// answered normally already woke the others (``noteAnswers(_:)``), and after an empty or refused probe they look
    /// again at their next poll; ringing here would set idle workers probing an empty outbox in turn, without pause.
    func endProbe() {
        state.withLock { $0.probing = false }
    }

    /// Feeds a chunk of Apple's answers to ``SendHealth``: a service refusal pauses sending, a normal answer to a
    /// probe resumes full batches.
    func noteAnswers(_ results: [SendResult]) {
        let now = Date()
        let (pause, resumed) = state.withLock { state -> (Duration?, Bool) in
            let wasHealthy = state.health.state == .healthy
            let pause = state.health.record(results.map(\.result), at: now, jitter: Double.random(in: 0..<1))
            return (pause, !wasHealthy && state.health.state == .healthy)
        }
        if let pause {
            metrics.setBackoff(pause)
            logger.warning(
                "APNs refused the service rather than devices; pausing sending, then probing with one push",
                metadata: [
                    DeliveryMetadataKey.keyID: "\(configuration.keyID)", DeliveryMetadataKey.pause: "\(pause)",
                ])
        }
        if resumed {
            metrics.setBackoff(.zero)
            doorbell.ring()
        }
    }
}
