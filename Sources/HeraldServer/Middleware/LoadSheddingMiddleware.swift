import HeraldCore
import Hummingbird
import Synchronization

/// Keeps answers bounded when more requests come than Herald can serve: beyond `limit` requests in progress a
/// request is answered 503 (with Retry-After) at once instead of queueing, and each admitted request waits for
/// database sessions `databaseWaitBudget` in all, then answers 503 too. Health, metrics and the dashboard's files
/// are not counted, so probes and scrapes still answer under load.
struct LoadSheddingMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let limit: Int
    let databaseWaitBudget: Duration
    private let inProgress = InProgressCount()

    init(limit: Int, databaseWaitBudget: Duration) {
        self.limit = limit
        self.databaseWaitBudget = databaseWaitBudget
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
            throw APIError(
                .serviceUnavailable, .unavailable,
                "Herald is serving as many requests as it can (\(limit) at once); retry after the seconds in Retry-After"
            )
        }
        defer { inProgress.leave() }
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
