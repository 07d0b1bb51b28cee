import Foundation
import HeraldTesting
import Logging
import Testing

@testable import Postgres

/// Statements under a task deadline are cancelled on the server when it passes or the task is cancelled, a session's
/// `statement_timeout` is set when it opens, and the session serves the next statement either way.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct StatementCancellationTests {
    /// The statements running `pg_sleep` on the server, seen from a session of its own.
    func sleepingStatements(_ observer: PostgresClient) async throws -> Int {
        try await observer.query(
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%' AND datname = current_database()
            """
        ).scalar(Int.self)
    }

    @Test func aCancelledTaskCancelsItsStatementOnTheServer() async throws {
        try await withFreshClient(options: .init(maximumConnections: 1)) { client, configuration in
            let observer = PostgresClient(configuration: configuration, logger: Logger(label: "test.observer"))
            defer { observer.shutdown() }
            let before = try await client.withConnection { try await $0.backendProcessID() }
            let started = ContinuousClock.now
            let sleeping = Task {
                try await PostgresClient.withWaitBudget(.seconds(60)) {
                    try await client.query("SELECT pg_sleep(30)")
                }
            }
            while try await sleepingStatements(observer) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            sleeping.cancel()
            let error = await #expect(throws: PostgresError.self) { try await sleeping.value }
            #expect(error?.sqlState == .queryCanceled)
            #expect(error?.isCanceled == true)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await sleepingStatements(observer) == 0)
            let after = try await client.withConnection { connection in
                (try await connection.backendProcessID(), try await connection.query("SELECT 1").scalar(Int.self))
            }
            #expect(after.0 == before, "the same session serves the next statement")
            #expect(after.1 == 1)
        }
    }

    @Test func aStatementStillRunningAtTheDeadlineIsCancelled() async throws {
        try await withFreshClient(options: .init(maximumConnections: 1)) { client, _ in
            // The session is opened first: on a busy machine opening one can take longer than the budget, and then
            // the statement never starts, which is the other case below.
            #expect(try await client.query("SELECT 1").scalar(Int.self) == 1)
            let started = ContinuousClock.now
            let error = await #expect(throws: PostgresError.self) {
                try await PostgresClient.withWaitBudget(.milliseconds(300)) {
                    try await client.query("SELECT pg_sleep(20)")
                }
            }
            #expect(error?.sqlState == .queryCanceled, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(5))
            let late = await #expect(throws: PostgresError.self) {
                try await PostgresClient.withWaitBudget(.milliseconds(300)) {
                    try await Task.sleep(for: .milliseconds(400))
                    try await client.query("SELECT 1")
                }
            }
            #expect(late?.kind == .deadlineExceeded, "past its deadline a statement does not start")
            #expect(try await client.query("SELECT 1").scalar(Int.self) == 1)
            let quick = try await PostgresClient.withWaitBudget(.seconds(5)) {
                try await client.query("SELECT 2").scalar(Int.self)
            }
            #expect(quick == 2)
        }
    }

    @Test func withoutADeadlineAStatementRunsToItsEnd() async throws {
        try await withFreshClient(options: .init(maximumConnections: 1)) { client, _ in
            let sleeping = Task { try await client.query("SELECT 7 FROM pg_sleep(0.5)").scalar(Int.self) }
            try await Task.sleep(for: .milliseconds(100))
            sleeping.cancel()
            #expect(try await sleeping.value == 7, "the engine's statements are never cancelled")
        }
    }

    @Test func theStatementTimeoutIsSetWhenASessionOpens() async throws {
        var configuration = try PostgresConfiguration(try await TestDatabases.shared.emptyDatabase())
        configuration.statementTimeout = .milliseconds(200)
        let client = PostgresClient(configuration: configuration, logger: Logger(label: "test"))
        defer { client.shutdown() }
        #expect(try await client.query("SHOW statement_timeout").scalar(String.self) == "200ms")
        let error = await #expect(throws: PostgresError.self) { try await client.query("SELECT pg_sleep(5)") }
        #expect(error?.sqlState == .queryCanceled)
        #expect(try await client.query("SELECT 3").scalar(Int.self) == 3)
    }
}
