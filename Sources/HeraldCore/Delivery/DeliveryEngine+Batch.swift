import Foundation

extension DeliveryEngine {
    /// Sends one claimed batch, whose permits of the send window the worker holds, and records every result: plan (no
    /// I/O), send, then decide whatever answers have arrived and queue them for the process's writers
    /// (``RecordQueue``) each time the last ones are written; each permit goes back once its delivery is recorded.
    /// What needed no request is recorded with the first chunk, its permits given back at once.
    func process(_ batch: [ClaimedDelivery]) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let plan = DeliveryPlanner(bundleID: configuration.bundleID).plan(batch, now: now(), paused: isSendingPaused)
        var unsent = plan.attempts.compactMap { $0 }
        window.returnUnused(unsent.count)
        let mailbox = AnswerMailbox(indices: plan.pushes.map(\.index))
        let sending = startSending(plan.pushes, batch: batch, into: mailbox)
        defer { forgetSending(sending) }
        while let results = await mailbox.take() {
            noteAnswers(results)
            var attempts = [DeliveryAttempt?](repeating: nil, count: batch.count)
            decide(results, batch: batch, plan: plan, answeredAt: now(), into: &attempts)
            await recordQueue.record(unsent + attempts.compactMap { $0 })
            settle(results)
            unsent.removeAll()
        }
        if !unsent.isEmpty { await recordQueue.record(unsent) }
    }
}
