import Foundation
import HeraldCore
import InMemoryTracing
import Tracing

/// Where the single sends' time goes during the fan-out, read from the spans the engine adds for traced pushes: each
/// single send carries a trace of its own, and its spans say when it was claimed, answered and written.
struct SingleSendStages {
    /// Collects the engine's spans; installed once, before the fairness run, as the process's tracer. Only the single
    /// sends carry a trace, so nothing else makes a span.
    static let tracer = InMemoryTracer()

    /// The trace single send `number` carries, which its spans join.
    static func carrier(_ number: Int) -> TraceCarrier {
        TraceCarrier(fields: [
            InMemoryTracer.traceIDKey: "single-\(number)", InMemoryTracer.spanIDKey: "single-\(number)",
        ])
    }

    /// One single send's stages, in milliseconds.
    struct Stages {
        /// From its insert to the start of the claim that took it: no claim had started since it came.
        var queued: Double
        var claim: Double
        /// From the end of the claim to Apple's answer: planning, the connection's queue and the round trip.
        var apns: Double
        /// From the answer to the start of the write that recorded it (where the latency ends).
        var toWrite: Double
        var batchSize: Int

        var total: Double { queued + claim + apns + toWrite }
    }

    let stages: [Stages]

    /// The stages of every single send that was recorded after an answer; `inserted` holds each one's insert time
    /// (seconds since 1970, the database's clock).
    init(inserted: [Int: Double]) {
        let spans = Dictionary(grouping: Self.tracer.finishedSpans, by: \.traceID)
        stages = inserted.compactMap { number, insertedAt in
            guard let spans = spans["single-\(number)"],
                let claim = spans.first(where: { $0.operationName == HeraldSpan.claim }),
                let apns = spans.first(where: { $0.operationName == HeraldSpan.apnsBatch }),
                let record = spans.first(where: { $0.operationName == HeraldSpan.record })
            else { return nil }
            func ms(_ instant: any TracerInstant) -> Double { Double(instant.nanosecondsSinceEpoch) / 1e6 }
            return Stages(
                queued: ms(claim.startInstant) - insertedAt * 1e3, claim: ms(claim.endInstant) - ms(claim.startInstant),
                apns: ms(apns.endInstant) - ms(claim.endInstant),
                toWrite: ms(record.startInstant) - ms(apns.endInstant),
                batchSize: claim.attributes["herald.batch.size"]?.toSpanAttribute().int ?? 0)
        }
    }

    /// Each stage's median and 99th percentile, then the mean stages of the slowest hundredth of the sends.
    var summary: String {
        guard !stages.isEmpty else { return "no single send was traced" }
        func percentiles(_ value: (Stages) -> Double) -> String {
            let sorted = stages.map(value).sorted()
            let at = { (p: Double) in sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))] }
            return String(format: "%.0f/%.0f", at(0.5), at(0.99))
        }
        let slowest = stages.sorted { $0.total > $1.total }.prefix(max(1, stages.count / 100))
        func mean(_ value: (Stages) -> Double) -> String {
            String(format: "%.0f", slowest.map(value).reduce(0, +) / Double(slowest.count))
        }
        return
            "waiting for a claim \(percentiles(\.queued)), the claim \(percentiles(\.claim)), to Apple and back "
            + "\(percentiles(\.apns)), waiting for the write \(percentiles(\.toWrite)) ms (p50/p99); claimed in "
            + "batches of \(percentiles { Double($0.batchSize) }); the slowest \(slowest.count): \(mean(\.queued)) + "
            + "\(mean(\.claim)) + \(mean(\.apns)) + \(mean(\.toWrite)) ms"
    }
}

extension SpanAttribute {
    fileprivate var int: Int? {
        switch self {
        case .int64(let value): Int(value)
        case .int32(let value): Int(value)
        default: nil
        }
    }
}
