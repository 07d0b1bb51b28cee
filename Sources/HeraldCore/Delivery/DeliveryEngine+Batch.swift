import Foundation

extension DeliveryEngine {
    /// Sends one claimed batch and records every result: plan (no I/O), send, decide, record.
    func process(_ batch: [ClaimedDelivery]) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let plan = DeliveryPlanner(bundleID: configuration.bundleID).plan(batch, now: Date(), paused: isPaused)
        let results = await send(plan.pushes, batch: batch)
        var attempts = plan.attempts
        decide(results, batch: batch, plan: plan, answeredAt: Date(), into: &attempts)
        await record(attempts.compactMap { $0 })
    }
}
