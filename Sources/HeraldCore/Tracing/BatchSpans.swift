import APNsCore
import Foundation
import Tracing

/// The spans of a claimed batch's pushes that carry a trace. Each such push gets, in its own trace, a
/// ``HeraldSpan/deliver`` span from its claim to its record, with three children: the claim, the APNs batch it went
/// in (until its answer) and the write that recorded it. The engine times each stage as it goes and the spans are
/// added once a push is recorded, so a batch with no traced push costs nothing more.
struct BatchSpans: Sendable {
    let claim: TraceInterval
    let batchSize: Int
    let workerID: String
    /// When the batch's pushes were handed to the APNs transport.
    let sentAt: DefaultTracerClock.Instant

    /// Nil when no delivery of `batch` carries a trace.
    init?(
        _ batch: [ClaimedDelivery], claim: TraceInterval, workerID: String,
        sentAt: DefaultTracerClock.Instant = DefaultTracerClock.now
    ) {
        guard batch.contains(where: { $0.trace != nil }) else { return nil }
        self.claim = claim
        batchSize = batch.count
        self.workerID = workerID
        self.sentAt = sentAt
    }

    /// Adds the spans of `attempts` once `write` has recorded them: `sent` went to Apple (answered by `answeredAt`
    /// at the latest), `unsent` needed no request (expired, canceled, paused, …).
    func add(
        sent: [DeliveryAttempt], unsent: [DeliveryAttempt], answeredAt: DefaultTracerClock.Instant,
        write: RecordedWrite
    ) {
        for attempt in sent { add(attempt, answeredAt: answeredAt, write: write) }
        for attempt in unsent { add(attempt, answeredAt: nil, write: write) }
    }

    private func add(_ attempt: DeliveryAttempt, answeredAt: DefaultTracerClock.Instant?, write: RecordedWrite) {
        let delivery = attempt.delivery
        guard let trace = delivery.trace else { return }
        let push = startSpan(HeraldSpan.deliver, context: trace.context, ofKind: .producer, at: claim.start)
        push.updateAttributes { attributes in
            attributes["herald.delivery.id"] = delivery.id.uuidString.lowercased()
            attributes["herald.notification.id"] = delivery.notificationID.uuidString.lowercased()
            attributes["herald.device.id"] = delivery.deviceID.uuidString.lowercased()
            attributes["herald.attempt"] = delivery.attempt
            attributes["herald.lane"] = delivery.lane.rawValue
            attributes["herald.outcome"] = attempt.outcome.logStatus.rawValue
            attributes["apns.environment"] = delivery.environment.rawValue
            if let status = attempt.httpStatus { attributes["apns.status"] = status }
            if let reason = attempt.reason { attributes["apns.reason"] = reason.text }
        }
        let claimSpan = startSpan(HeraldSpan.claim, context: push.context, at: claim.start)
        claimSpan.updateAttributes { attributes in
            attributes["herald.batch.size"] = batchSize
            attributes["herald.worker"] = workerID
        }
        claimSpan.end(at: claim.end)
        if let answeredAt {
            let batchSpan = startSpan(HeraldSpan.apnsBatch, context: push.context, ofKind: .client, at: sentAt)
            batchSpan.updateAttributes { attributes in
                attributes["herald.batch.size"] = batchSize
                attributes["apns.id"] = delivery.id.uuidString.lowercased()
                if let uniqueID = attempt.uniqueID { attributes["apns.unique_id"] = uniqueID }
            }
            batchSpan.end(at: attempt.latency.map { sentAt.advanced(bySeconds: $0) } ?? answeredAt)
        }
        let recordSpan = startSpan(HeraldSpan.record, context: push.context, at: write.interval.start)
        if !write.committed { recordSpan.setStatus(SpanStatus(code: .error, message: "the write did not commit")) }
        recordSpan.end(at: write.interval.end)
        push.end(at: write.interval.end)
    }
}

extension DefaultTracerClock.Instant {
    fileprivate func advanced(bySeconds seconds: Double) -> Self {
        Self(nanosecondsSinceEpoch: nanosecondsSinceEpoch + UInt64(max(0, seconds) * 1e9))
    }
}
