import Foundation
import HeraldTesting
import LocalServices
import Logging
import Postgres
import Testing

/// Runs the built `herald` executable, as an operator would.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct MigrateCommandTests {
    @Test func heraldWasBuilt() {
        #expect(
            FileManager.default.isExecutableFile(atPath: BuiltProgram.herald.url.path),
            "build the herald product before the tests")
    }

    @Test func twoConcurrentMigrateUpApplyEachMigrationOnce() async throws {
        let url = try await TestDatabases.shared.emptyDatabase()
        let arguments = ["migrate", "up", "--database-url", url, "--migrations", Repository.migrations.path]
        async let first = BuiltProgram.herald.run(arguments)
        async let second = BuiltProgram.herald.run(arguments)
        let outcomes = try await [first, second]
        #expect(outcomes.map(\.status) == [0, 0], "\(outcomes.map(\.output))")
        let appliedLines = outcomes.flatMap { $0.output.split(separator: "\n").filter { $0.hasPrefix("applied ") } }
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.migrations.path).filter {
            $0.hasSuffix(".up.sql")
        }
        #expect(appliedLines.count == files.count)
        #expect(Set(appliedLines.map { $0.split(separator: " ")[1] }).count == files.count)

        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        #expect(try await client.query("SELECT count(*) FROM schema_migrations").scalar(Int.self) == files.count)

        let status = try await BuiltProgram.herald.run([
            "migrate", "status", "--database-url", url, "--migrations", Repository.migrations.path,
        ])
        #expect(status.status == 0)
        #expect(status.output.contains("database is up to date"))
        let down = try await BuiltProgram.herald.run([
            "migrate", "down", "2", "--database-url", url, "--migrations", Repository.migrations.path,
        ])
        #expect(down.output.split(separator: "\n").filter { $0.hasPrefix("reverted ") }.count == 2)
        #expect(try await client.query("SELECT count(*) FROM schema_migrations").scalar(Int.self) == files.count - 2)
    }

    @Test func failuresExitNonZeroWithAReadableMessage() async throws {
        let noDatabase = try await BuiltProgram.herald.run([
            "migrate", "up", "--migrations", Repository.migrations.path,
        ])
        #expect(noDatabase.status != 0)
        #expect(noDatabase.output.contains("DATABASE_URL"))

        let badURL = try await BuiltProgram.herald.run([
            "migrate", "up", "--database-url", "postgres://[nope", "--migrations", Repository.migrations.path,
        ])
        #expect(badURL.status != 0)
        #expect(badURL.output.contains("invalid database URL"))

        let serverDown = try await BuiltProgram.herald.run(
            [
                "migrate", "status", "--database-url", "postgres://herald:hunter2@127.0.0.1:1/herald", "--migrations",
                Repository.migrations.path,
            ])
        #expect(serverDown.status != 0)
        #expect(serverDown.output.contains("Connection refused"))
        #expect(!serverDown.output.contains("hunter2"))
    }
}
