import APNsCore
import Foundation
import Logging
import Synchronization

extension DeliveryEngine {
    /// Turns Apple's answers into outcomes through the policy and the burst guard of each delivery's app and
    /// environment. A delivery to an inactive device (only a push relayed by the APNs ingress is sent to one) has no
    /// device left to deactivate: its answers neither count toward the guard nor wait for it.
    func decide(
        _ results: [SendResult], batch: [ClaimedDelivery],
        plan: DeliveryPlanner.Plan,
        answeredAt: Date, into attempts: inout [DeliveryAttempt?]
    ) {
        let policy = configuration.policy
        let defaultTopic = configuration.bundleID
        let (decided, tripped) = burstGuards.withLock {
            guards -> ([(SendResult, DeliveryOutcome)], [BurstGuards.Scope: Int]) in
            let decided = results.map { sent in
                let delivery = batch[sent.index]
                let scope = BurstGuards.Scope(delivery, defaultTopic: defaultTopic)
                if case .failed = sent.result {
                } else if delivery.deviceActive {
                    guards.record(
                        wouldDeactivate: policy.wouldDeactivate(sent.result, facts: delivery.facts), in: scope)
                }
                let outcome = policy.outcome(
                    of: sent.result, facts: delivery.facts, now: answeredAt,
                    burstGuardTripped: delivery.deviceActive && guards.isTripped(scope),
                    jitter: Double.random(in: 0..<1))
                return (sent, outcome)
            }
            return (decided, guards.tripped)
        }
        noteBurstGuards(tripped: tripped)
        for (sent, outcome) in decided {
            let index = sent.index
            let delivery = batch[index]
            if case .pauseKey(let reason) = outcome { pause(reason: reason) }
            let content = plan.content(of: delivery)
            attempts[index] = DeliveryAttempt(
                delivery: delivery, outcome: outcome, httpStatus: sent.result.httpStatus,
                reason: sent.result.reason ?? outcome.reason,
                latency: sent.result.httpStatus == nil ? nil : sent.latency, payload: content?.payload,
                errorMessage: sent.result.errorMessage, feedbackID: content?.feedbackID, finishedAt: answeredAt,
                uniqueID: sent.result.uniqueID, appleTimestamp: sent.result.appleTimestamp)
        }
    }

    /// Logs each app and environment whose guard tripped or recovered since the last answers.
    private func noteBurstGuards(tripped: [BurstGuards.Scope: Int]) {
        let now = Set(tripped.keys)
        let (newlyTripped, resumed) = state.withLock { state in
            defer { state.trippedBurstGuards = now }
            return (now.subtracting(state.trippedBurstGuards), state.trippedBurstGuards.subtracting(now))
        }
        for scope in newlyTripped {
            logger.critical(
                """
                too many recent APNs answers for \(scope) would deactivate devices; deactivation is suspended there \
                and those deliveries are kept for retry. Check the APNs key, team, topic and environment.
                """,
                metadata: [DeliveryMetadataKey.count: "\(tripped[scope] ?? 0)"])
        }
        for scope in resumed {
            logger.notice("device deactivation resumed for \(scope): recent APNs answers look normal again")
        }
    }

    /// Writes the batch's results, retrying briefly; if the database stays unreachable the leases run out
    /// and the rescuer sends the rows again (at-least-once).
    /// - Returns: Whether the results were written.
    func record(_ attempts: [DeliveryAttempt]) async -> Bool {
        var deactivated: [DeactivatedDevice] = []
        var written = false
        for trial in 1...3 {
            do {
                deactivated = try await store.record(attempts, workerID: configuration.workerID)
                written = true
                break
            } catch {
                logger.error(
                    "recording delivery results failed",
                    metadata: [DeliveryMetadataKey.error: "\(error)", DeliveryMetadataKey.count: "\(attempts.count)"])
                try? await Task.sleep(for: .milliseconds(200 * trial))
            }
        }
        guard written else { return false }
        metrics.recordBatch(
            attempts.map { .init(lane: $0.delivery.lane, outcome: $0.outcome, latency: $0.latency) })
        if attempts.contains(where: { $0.outcome.isDueNow }) { doorbell.ring() }
        report(attempts, deactivated: deactivated)
        return true
    }

    /// Tells the event sink (the webhook) about deactivated devices and final failures.
    private func report(_ attempts: [DeliveryAttempt], deactivated: [DeactivatedDevice]) {
        guard let webhook else { return }
        let now = self.now()
        var events = deactivated.map {
            WebhookEvent(
                type: .deviceDeactivated, occurredAt: now, deviceId: $0.deviceID, userId: $0.userExternalID,
                reason: $0.reason.rawValue)
        }
        for attempt in attempts {
            guard case .fail(let reason) = attempt.outcome else { continue }
            events.append(
                WebhookEvent(
                    type: .deliveryFailed, occurredAt: now, deviceId: attempt.delivery.deviceID,
                    userId: attempt.delivery.userExternalID, reason: reason.text, deliveryId: attempt.delivery.id,
                    notificationId: attempt.delivery.notificationID))
        }
        webhook.enqueue(events)
    }
}
