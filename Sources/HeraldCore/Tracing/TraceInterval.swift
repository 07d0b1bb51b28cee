import Tracing

/// A stretch of time on the tracer's clock: what a span covers when it is added after the work it measures (the
/// engine's batches learn which trace each push belongs to only once they are claimed).
struct TraceInterval: Sendable {
    let start: DefaultTracerClock.Instant
    let end: DefaultTracerClock.Instant

    /// From `start` until now.
    static func since(_ start: DefaultTracerClock.Instant) -> TraceInterval {
        TraceInterval(start: start, end: DefaultTracerClock.now)
    }
}

/// One write of delivery results: when it ran and whether it committed.
struct RecordedWrite: Sendable {
    let interval: TraceInterval
    let committed: Bool
}
