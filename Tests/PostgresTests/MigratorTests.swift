import Foundation
import HeraldTesting
import Logging
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct MigratorTests {
    /// A folder of migration files that is removed when the test ends.
    final class MigrationFolder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-migrations-\(UUID().uuidString)")

        init(_ files: [String: String]) throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (name, text) in files { try write(name, text) }
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ name: String, _ text: String) throws {
            try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }

        func migrations() throws -> [Migration] {
            // The text itself is a checksum that changes whenever the file does.
            try MigrationDirectory.load(from: url) { String(decoding: $0, as: UTF8.self) }
        }
    }

    static let files = [
        "0001_create_accounts.up.sql":
            "CREATE TABLE accounts (id int PRIMARY KEY);\nINSERT INTO accounts VALUES (1);\n",
        "0001_create_accounts.down.sql": "DROP TABLE accounts;\n",
        "0002_add_name.up.sql": "ALTER TABLE accounts ADD COLUMN name text;\n",
        "0002_add_name.down.sql": "ALTER TABLE accounts DROP COLUMN name;\n",
        "0003_index_name.up.sql":
            "-- herald:no-transaction\nCREATE INDEX CONCURRENTLY accounts_name_idx ON accounts (name);\n",
        "0003_index_name.down.sql": "DROP INDEX accounts_name_idx;\n",
    ]

    private func tables(_ client: PostgresClient) async throws -> [String] {
        try await client.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).decode(String.self)
    }

    @Test func upDownAndStatusOnAnEmptyDatabase() async throws {
        let folder = try MigrationFolder(Self.files)
        try await withFreshClient { client, _ async throws in
            let migrator = try Migrator(
                client: client, migrations: try folder.migrations(), logger: Logger(label: "test"))
            #expect(try await migrator.status().map(\.state) == [.pending, .pending, .pending])

            #expect(try await migrator.up().map(\.version) == [1, 2, 3])
            #expect(try await tables(client) == ["accounts", "schema_migrations"])
            let applied = try await migrator.status()
            #expect(applied.allSatisfy { if case .applied = $0.state { true } else { false } })
            #expect(try await migrator.up().isEmpty)

            #expect(try await migrator.down().map(\.version) == [3])
            #expect(try await migrator.down(steps: 2).map(\.version) == [2, 1])
            #expect(try await tables(client) == ["schema_migrations"])
            #expect(try await migrator.down().isEmpty)
            #expect(try await migrator.up().count == 3)
            #expect(try await client.query("SELECT count(*) FROM accounts").scalar(Int.self) == 1)
        }
    }

    @Test func editedAppliedMigrationIsRefusedNamingTheFile() async throws {
        let folder = try MigrationFolder(Self.files)
        try await withFreshClient { client, _ async throws in
            try await Migrator(client: client, migrations: try folder.migrations(), logger: Logger(label: "test")).up()
            try folder.write("0002_add_name.up.sql", "ALTER TABLE accounts ADD COLUMN name varchar(10);\n")
            try folder.write("0004_more.up.sql", "CREATE TABLE more (id int);\n")
            let migrator = try Migrator(
                client: client, migrations: try folder.migrations(), logger: Logger(label: "test"))
            let error = await #expect(throws: MigrationError.self) { try await migrator.up() }
            #expect(error?.kind == .edited)
            #expect(error?.fileName == "0002_add_name.up.sql")
            #expect(error?.description.contains("0002_add_name.up.sql") == true)
            // Nothing after the edited file was applied either.
            #expect(try await tables(client).contains("more") == false)
            if case .edited = try await migrator.status()[1].state {} else { Issue.record("status should say edited") }
        }
    }

    @Test func failingScriptNamesFileAndLineAndKeepsNothing() async throws {
        let folder = try MigrationFolder([
            "0001_ok.up.sql": "CREATE TABLE ok (id int);\n",
            "0002_broken.up.sql": "CREATE TABLE half (id int);\n\nCREATE TABLE broken (id int,, name text);\n",
        ])
        try await withFreshClient { client, _ async throws in
            let migrator = try Migrator(
                client: client, migrations: try folder.migrations(), logger: Logger(label: "test"))
            let error = await #expect(throws: MigrationError.self) { try await migrator.up() }
            #expect(error?.kind == .scriptFailed)
            #expect(error?.fileName == "0002_broken.up.sql")
            #expect(error?.line == 3)
            #expect(error?.description.hasPrefix("0002_broken.up.sql:3:") == true)
            #expect(try await tables(client) == ["ok", "schema_migrations"])
            #expect(try await migrator.status().map(\.state).last == .pending)
        }
    }

    @Test func concurrentRunsApplyEachMigrationExactlyOnce() async throws {
        let folder = try MigrationFolder(Self.files)
        let migrations = try folder.migrations()
        try await withFreshClient { _, configuration async throws in
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let client = PostgresClient(
                            configuration: configuration, logger: Logger(label: "runner-\(index)"))
                        defer { client.shutdown() }
                        return try await Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
                            .up().map(\.version)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(results.sorted() == [1, 2, 3])
        }
    }

    @Test func windowsLineEndingsKeepTheMarkerAndLineNumbers() async throws {
        let folder = try MigrationFolder([
            "0001_table.up.sql": "CREATE TABLE t (id int);\r\nINSERT INTO t VALUES (1);\r\n",
            "0002_index.up.sql": "\u{FEFF}-- herald:no-transaction\r\nCREATE INDEX CONCURRENTLY t_idx ON t (id);\r\n",
            "0003_broken.up.sql": "SELECT 1;\r\n\r\nSELEC 2;\r\n",
        ])
        let migrations = try folder.migrations()
        #expect(migrations.map(\.up.runsInTransaction) == [true, false, true])
        try await withFreshClient { client, _ async throws in
            let migrator = try Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
            let error = await #expect(throws: MigrationError.self) { try await migrator.up() }
            #expect(error?.fileName == "0003_broken.up.sql")
            #expect(error?.line == 3)
            #expect(error?.description.contains("syntax error") == true)
        }
    }

    @Test func badFileNamesAndOrphanDownScriptsAreRejected() throws {
        let misnamed = try MigrationFolder(["create_users.up.sql": "SELECT 1;"])
        #expect(throws: MigrationError.self) { try misnamed.migrations() }
        let orphan = try MigrationFolder(["0001_a.down.sql": "SELECT 1;"])
        let error = #expect(throws: MigrationError.self) { try orphan.migrations() }
        #expect(error?.fileName == "0001_a.down.sql")
        let duplicate = try MigrationFolder(["0001_a.up.sql": "SELECT 1;", "0001_b.up.sql": "SELECT 2;"])
        #expect(throws: MigrationError.self) { try duplicate.migrations() }
        let mismatched = try MigrationFolder(["0001_a.up.sql": "SELECT 1;", "0001_b.down.sql": "SELECT 2;"])
        #expect(throws: MigrationError.self) { try mismatched.migrations() }
    }
}
