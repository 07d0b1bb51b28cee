import Foundation

extension DeliveryEngine {
    /// Sends one claimed batch and records every result: plan (no I/O), send, then decide and record each chunk of
    /// answers as it arrives; what needed no request is recorded with the first chunk.
    func process(_ batch: [ClaimedDelivery]) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let plan = DeliveryPlanner(bundleID: configuration.bundleID).plan(batch, now: now(), paused: isSendingPaused)
        var unsent = plan.attempts.compactMap { $0 }
        for await results in send(plan.pushes, batch: batch) {
            noteAnswers(results)
            var attempts = [DeliveryAttempt?](repeating: nil, count: batch.count)
            decide(results, batch: batch, plan: plan, answeredAt: now(), into: &attempts)
            await record(unsent + attempts.compactMap { $0 })
            unsent.removeAll()
        }
        if !unsent.isEmpty { await record(unsent) }
    }
}
