import HTTPTypes
import HeraldCore
import Hummingbird
import Logging
import NIOCore
import Prometheus
import Synchronization

/// Keeps answers bounded when more requests come than Herald can serve: beyond `limit` API requests in progress a
/// request is answered 503 (with Retry-After) at once instead of queueing, and each admitted request waits for
/// database sessions `databaseWaitBudget` in all, then answers 503 too. Health, metrics and the dashboard's files
/// are not counted, so probes and scrapes still answer under load.
///
/// It runs first and refusing costs next to nothing (a fixed answer, no log line per request, a counter), so a
/// storm of clients retrying at once leaves the CPU to the requests admitted.
struct LoadSheddingMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    static let refusal: ByteBuffer = ByteBuffer(
        string: #"{"error":"unavailable","message":"Herald is serving as many requests as it can; retry after "#
            + #"the seconds in Retry-After"}"#)

    let limit: Int
    let databaseWaitBudget: Duration
    private let inProgress = InProgressCount()
    private let inProgressGauge: Gauge
    private let refused: Counter
    private let report = RefusalReport()

    init(limit: Int, databaseWaitBudget: Duration, metrics: PrometheusCollectorRegistry) {
        self.limit = limit
        self.databaseWaitBudget = databaseWaitBudget
        inProgressGauge = metrics.makeGauge(
            descriptor: .herald(
                "herald_http_requests_in_progress", help: "API requests being served now (refused ones excluded)."))
        refused = metrics.makeCounter(
            descriptor: .herald(
                "herald_http_requests_shed_total",
                help: "API requests answered 503 at once because as many as the server takes were in progress."))
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/") else {
            return try await DatabaseAvailability.withWaitBudget(databaseWaitBudget) {
                try await next(request, context)
            }
        }
        guard inProgress.enter(below: limit) else {
            refused.increment()
            if let count = report.refusedOne() {
                context.logger.warning(
                    "shedding load: API requests refused with 503 while \(limit) were in progress",
                    metadata: ["herald.http.refused": "\(count)"])
            }
            return Response(
                status: .serviceUnavailable,
                headers: [.contentType: "application/json; charset=utf-8", .retryAfter: "1"],
                body: ResponseBody(byteBuffer: Self.refusal))
        }
        inProgressGauge.increment()
        defer {
            inProgressGauge.decrement()
            inProgress.leave()
        }
        return try await DatabaseAvailability.withWaitBudget(databaseWaitBudget) { try await next(request, context) }
    }
}

/// The API requests in progress, shared by every connection.
private final class InProgressCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more request unless `limit` are already in progress.
    func enter(below limit: Int) -> Bool {
        var current = count.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = count.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func leave() { count.subtract(1, ordering: .acquiringAndReleasing) }
}

/// One log line per 10 seconds of shedding at most, with the count since the last one.
private final class RefusalReport: Sendable {
    private static let interval = Duration.seconds(10)
    private let state = Mutex<(last: ContinuousClock.Instant?, count: Int)>((nil, 0))

    /// - Returns: The refusals to report now, or nil while the last line is recent.
    func refusedOne() -> Int? {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.count += 1
            if let last = state.last, last.duration(to: now) < Self.interval { return nil }
            defer { state = (now, 0) }
            return state.count
        }
    }
}
