import Foundation
import Tracing

extension DeliveryEngine {
    /// Sends one claimed batch, whose permits of the send window (from `part`) the claimer holds, and records every
    /// result: plan (no I/O), send, then decide whatever answers have arrived and queue them for the process's writers
    /// (``RecordQueue``) each time the last ones are written; each permit goes back once its delivery is recorded.
    /// What needed no request is recorded with the first chunk, its permits given back at once. `claim` is when the
    /// batch was claimed, for the spans of its traced pushes (``BatchSpans``).
    func process(_ batch: [ClaimedDelivery], claim: TraceInterval, permitsFrom part: SendWindow.Part) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let plan = DeliveryPlanner(bundleID: configuration.bundleID).plan(batch, now: now(), paused: isSendingPaused)
        var unsent = plan.attempts.compactMap { $0 }
        window.returnUnused(unsent.count, to: part)
        let mailbox = AnswerMailbox(indices: plan.pushes.map(\.index))
        let spans = BatchSpans(batch, claim: claim, workerID: configuration.workerID)
        let sending = startSending(plan.pushes, batch: batch, into: mailbox)
        defer { forgetSending(sending) }
        while let results = await mailbox.take() {
            let answeredAt = DefaultTracerClock.now
            noteAnswers(results)
            var attempts = [DeliveryAttempt?](repeating: nil, count: batch.count)
            decide(results, batch: batch, plan: plan, answeredAt: now(), into: &attempts)
            await record(sent: attempts.compactMap { $0 }, unsent: unsent, answeredAt: answeredAt, spans: spans)
            settle(results, to: part)
            unsent.removeAll()
        }
        if !unsent.isEmpty {
            await record(sent: [], unsent: unsent, answeredAt: DefaultTracerClock.now, spans: spans)
        }
    }

    /// Queues the attempts for the writers, the immediate lane's in the urgent line (so they are written at once,
    /// whatever bulk write is under way), and returns once both lanes' are written.
    private func record(
        sent: [DeliveryAttempt], unsent: [DeliveryAttempt], answeredAt: DefaultTracerClock.Instant,
        spans: BatchSpans?
    ) async {
        func part(_ attempts: [DeliveryAttempt], _ lane: DeliveryLane) -> [DeliveryAttempt] {
            attempts.filter { $0.delivery.lane == lane }
        }
        async let urgent = recordQueue.record(part(unsent, .immediate) + part(sent, .immediate), urgent: true)
        async let other = recordQueue.record(part(unsent, .bulk) + part(sent, .bulk))
        let writes = await [DeliveryLane.immediate: urgent, .bulk: other]
        guard let spans else { return }
        for case (let lane, let write?) in writes {
            spans.add(sent: part(sent, lane), unsent: part(unsent, lane), answeredAt: answeredAt, write: write)
        }
    }
}
