import Foundation
import LocalServices
import Logging
import Postgres
import Testing

/// Runs the built `herald` executable, as an operator would.
@Suite(.timeLimit(.minutes(2))) struct MigrateCommandTests {
    /// `herald` sits beside the test bundle in the build folder.
    static let herald = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("herald")

    static let migrationsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Migrations")

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProgramOutcome {
        try await ProcessRunner.outcome(
            of: herald, arguments,
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "DATABASE_URL" }.merging(
                environment
            ) { $1 })
    }

    @Test func heraldWasBuilt() {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.herald.path), "build the herald product before the tests")
    }

    @Test func twoConcurrentMigrateUpApplyEachMigrationOnce() async throws {
        let url = try await TestDatabases.shared.emptyDatabase()
        let arguments = ["migrate", "up", "--database-url", url, "--migrations", Self.migrationsFolder.path]
        async let first = Self.run(arguments)
        async let second = Self.run(arguments)
        let outcomes = try await [first, second]
        #expect(outcomes.map(\.status) == [0, 0], "\(outcomes.map(\.output))")
        let appliedLines = outcomes.flatMap { $0.output.split(separator: "\n").filter { $0.hasPrefix("applied ") } }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsFolder.path).filter {
            $0.hasSuffix(".up.sql")
        }
        #expect(appliedLines.count == files.count)
        #expect(Set(appliedLines.map { $0.split(separator: " ")[1] }).count == files.count)

        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        #expect(try await client.query("SELECT count(*) FROM schema_migrations").scalar(Int.self) == files.count)

        let status = try await Self.run([
            "migrate", "status", "--database-url", url, "--migrations", Self.migrationsFolder.path,
        ])
        #expect(status.status == 0)
        #expect(status.output.contains("database is up to date"))
        let down = try await Self.run([
            "migrate", "down", "2", "--database-url", url, "--migrations", Self.migrationsFolder.path,
        ])
        #expect(down.output.split(separator: "\n").filter { $0.hasPrefix("reverted ") }.count == 2)
        #expect(try await client.query("SELECT count(*) FROM schema_migrations").scalar(Int.self) == files.count - 2)
    }

    @Test func failuresExitNonZeroWithAReadableMessage() async throws {
        let noDatabase = try await Self.run(["migrate", "up", "--migrations", Self.migrationsFolder.path])
        #expect(noDatabase.status != 0)
        #expect(noDatabase.output.contains("DATABASE_URL"))

        let badURL = try await Self.run([
            "migrate", "up", "--database-url", "postgres://[nope", "--migrations", Self.migrationsFolder.path,
        ])
        #expect(badURL.status != 0)
        #expect(badURL.output.contains("invalid database URL"))

        let serverDown = try await Self.run(
            [
                "migrate", "status", "--database-url", "postgres://herald:hunter2@127.0.0.1:1/herald", "--migrations",
                Self.migrationsFolder.path,
            ])
        #expect(serverDown.status != 0)
        #expect(serverDown.output.contains("Connection refused"))
        #expect(!serverDown.output.contains("hunter2"))
    }
}
