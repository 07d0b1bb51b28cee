import Foundation
import Tracing

extension DeliveryEngine {
    /// Sends one claimed batch, whose permits of the send window the worker holds, and records every result: plan (no
    /// I/O), send, then decide whatever answers have arrived and queue them for the process's writers
    /// (``RecordQueue``) each time the last ones are written; each permit goes back once its delivery is recorded.
    /// What needed no request is recorded with the first chunk, its permits given back at once. `claim` is when the
    /// batch was claimed, for the spans of its traced pushes (``BatchSpans``).
    func process(_ batch: [ClaimedDelivery], claim: TraceInterval) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let plan = DeliveryPlanner(bundleID: configuration.bundleID).plan(batch, now: now(), paused: isSendingPaused)
        var unsent = plan.attempts.compactMap { $0 }
        window.returnUnused(unsent.count)
        let mailbox = AnswerMailbox(indices: plan.pushes.map(\.index))
        let spans = BatchSpans(batch, claim: claim, workerID: configuration.workerID)
        let sending = startSending(plan.pushes, batch: batch, into: mailbox)
        defer { forgetSending(sending) }
        while let results = await mailbox.take() {
            let answeredAt = DefaultTracerClock.now
            noteAnswers(results)
            var attempts = [DeliveryAttempt?](repeating: nil, count: batch.count)
            decide(results, batch: batch, plan: plan, answeredAt: now(), into: &attempts)
            let sent = attempts.compactMap { $0 }
            let write = await recordQueue.record(unsent + sent)
            if let spans, let write { spans.add(sent: sent, unsent: unsent, answeredAt: answeredAt, write: write) }
            settle(results)
            unsent.removeAll()
        }
        if !unsent.isEmpty, let write = await recordQueue.record(unsent) {
            spans?.add(sent: [], unsent: unsent, answeredAt: DefaultTracerClock.now, write: write)
        }
    }
}
