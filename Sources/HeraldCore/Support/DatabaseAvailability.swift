import Postgres

/// Tells a failure of the database itself (its pool is exhausted, or it cannot be reached) from a request's own
/// fault, so the API can answer the first with 503 without knowing the database driver.
public enum DatabaseAvailability {
    /// Whether `error` means the database cannot serve requests right now.
    public static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.kind == .poolTimeout || error.isConnectionFailure
    }

    /// Whether `error` means a statement ran out of time (`statement_timeout`, the wait budget) or was cancelled
    /// with its task: the request cannot be served now, though the database may well serve the next one.
    public static func ranOutOfTime(_ error: any Error) -> Bool {
        error is CancellationError || (error as? PostgresError)?.isCanceled == true
    }

    /// Runs `body` (one API request, say) with at most `budget` of waiting for database sessions in all; past it,
    /// the next wait fails at once as unavailable (``isUnavailable(_:)``), so the caller answers within a bound. A
    /// statement still running when the budget runs out, or when the task is cancelled, is cancelled on the server
    /// (``ranOutOfTime(_:)``).
    public static func withWaitBudget<T>(_ budget: Duration, _ body: () async throws -> T) async rethrows -> T {
        try await PostgresClient.withWaitBudget(budget, body)
    }
}
