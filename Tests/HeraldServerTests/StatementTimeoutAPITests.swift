import HTTPTypes
import HeraldServer
import HeraldTesting
import Logging
import Postgres
import Testing

/// An API request's statement that runs too long is cancelled (by `statement_timeout`, or by `PQcancel` when the
/// request's wait budget runs out) and answered 503 with `Retry-After`; the session serves the next request.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct StatementTimeoutAPITests {
    /// Runs `body` while a session of its own holds `api_keys` locked, so every key lookup waits on the lock.
    func withKeysLocked(_ harness: APIHarness, _ body: () async throws -> Void) async throws {
        var configuration = harness.client.configuration
        configuration.statementTimeout = nil
        let locker = PostgresClient(configuration: configuration, logger: Logger(label: "test.locker"))
        defer { locker.shutdown() }
        try await locker.withTransaction { connection in
            try await connection.execute("LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE")
            try await body()
        }
    }

    func expectRefusedInTime(_ answer: API.Answer, after waited: Duration, within bound: Duration) {
        #expect(answer.status == .serviceUnavailable, "\(answer.text)")
        #expect(answer.error == "unavailable")
        #expect(answer.headers[.retryAfter] == "1")
        #expect(waited < bound, "\(waited)")
    }

    @Test func theStatementTimeoutCancelsASlowStatementWith503() async throws {
        let harness = try await APIHarness.make(databaseSessions: 1, statementTimeout: .milliseconds(500))
        try await harness.run { api in
            try await withKeysLocked(harness) {
                let started = ContinuousClock.now
                let answer = try await api.call(.get, "/api/v1/logs", headers: harness.admin())
                expectRefusedInTime(answer, after: ContinuousClock.now - started, within: .seconds(3))
            }
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok)
        }
    }

    @Test func theWaitBudgetCancelsAStatementStillRunningWith503() async throws {
        var configured = try await APIHarness.make(databaseSessions: 1)
        configured.settings.databaseWaitBudget = .milliseconds(700)
        let harness = configured
        try await harness.run { api in
            try await withKeysLocked(harness) {
                let started = ContinuousClock.now
                let answer = try await api.call(.get, "/api/v1/logs", headers: harness.admin())
                expectRefusedInTime(answer, after: ContinuousClock.now - started, within: .seconds(3))
                let waiting = try await lockWaiters(harness)
                #expect(waiting == 0, "the cancelled lookup no longer waits on the server")
            }
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok)
        }
    }

    /// Statements of the API's database waiting on a lock, seen from a session of their own.
    func lockWaiters(_ harness: APIHarness) async throws -> Int {
        let observer = PostgresClient(
            configuration: harness.client.configuration, logger: Logger(label: "test.observer"))
        defer { observer.shutdown() }
        return try await observer.query(
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND datname = current_database()
            """
        ).scalar(Int.self)
    }
}
