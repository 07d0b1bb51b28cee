import APNsCore
import Foundation
import Logging
import Synchronization

extension DeliveryEngine {
    /// How many deliveries `claimer` may claim now (see ``SendHealth``): a full batch, one to probe (only one worker
    /// probes at a time, never the immediate lane's loop), or none, with the time left in the pause.
    func claimLimit(for claimer: Claimer) -> (limit: Int, isProbe: Bool, pause: Duration?) {
        let now = self.now()
        return state.withLock { state in
            let limit = state.health.claimLimit(batchSize: configuration.batchSize, at: now)
            guard limit > 0 else { return (0, false, state.health.remainingPause(at: now)) }
            guard state.health.state == .probing else { return (limit, false, nil) }
            if claimer == .immediateLane { return (0, false, nil) }
            // The others wait for the probe's answer (a normal one rings the doorbell) or their next poll.
            if state.probing { return (0, false, nil) }
            state.probing = true
            return (1, true, nil)
        }
    }

    /// Whether a pause (``SendHealth``) is running now: batches claimed before it began go back unsent.
    var isSendingPaused: Bool {
        let now = self.now()
        return state.withLock { $0.health.remainingPause(at: now) != nil }
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
        let now = self.now()
        let (pause, resumed, credentialsRestored) = state.withLock { state -> (Duration?, Bool, Bool) in
            let wasHealthy = state.health.state == .healthy
            let pause = state.health.record(results.map(\.result), at: now, jitter: Double.random(in: 0..<1))
            let resumed = !wasHealthy && state.health.state == .healthy
            let credentialsRestored = resumed && state.pausedReason != nil
            if credentialsRestored { state.pausedReason = nil }
            return (pause, resumed, credentialsRestored)
        }
        if let pause {
            metrics.setBackoff(pause)
            logger.warning(
                "APNs refused the service rather than devices; pausing sending, then probing with one push",
                metadata: [
                    DeliveryMetadataKey.keyID: "\(configuration.keyID)", DeliveryMetadataKey.pause: "\(pause)",
                ])
        }
        if credentialsRestored {
            metrics.setPaused(false)
            logger.notice(
                "APNs accepted Herald's credentials again; delivery continues",
                metadata: [DeliveryMetadataKey.keyID: "\(configuration.keyID)"])
        }
        if resumed {
            metrics.setBackoff(.zero)
            doorbell.ring()
        }
    }

    /// Apple refused the key or team (or no provider token could be made): sending pauses on the credential ladder
    /// (``SendHealth``), then probes with one push; it resumes by itself once a probe is answered normally.
    func pause(reason: DeliveryReason) {
        let now = self.now()
        let (first, pause) = state.withLock { state in
            defer { state.pausedReason = reason }
            return (
                state.pausedReason == nil,
                state.health.recordCredentialRefusal(at: now, jitter: Double.random(in: 0..<1))
            )
        }
        guard let pause else { return }
        metrics.setBackoff(pause)
        if first { metrics.setPaused(true) }
        logger.critical(
            """
            APNs refused Herald's credentials (\(reason)); sending with this key pauses for \
            \(Int(pause.seconds.rounded())) s, then probes with one push, the pause doubling up to \
            \(Int(configuration.credentialBackoff.maximum.seconds)) s while Apple keeps refusing. \
            Fix the key or team at Apple, or deploy a new key; `herald deliveries resume` probes at once
            """,
            metadata: [
                DeliveryMetadataKey.keyID: "\(configuration.keyID)", DeliveryMetadataKey.reason: "\(reason)",
                DeliveryMetadataKey.pause: "\(pause)",
            ])
    }
}
