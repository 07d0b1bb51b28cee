import ArgumentParser
import Foundation
import Logging
import Postgres

/// `herald migrate up | down [N] | status`.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply, revert or list the database migrations.",
        discussion: """
            Migrations run one at a time under a PostgreSQL advisory lock, so several processes may run \
            `herald migrate up` at once: each migration is applied exactly once.
            """,
        subcommands: [Up.self, Down.self, Status.self])

    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply every pending migration, in order.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withMigrator(database) { migrator in
                let applied = try await migrator.up { event in Console.line(describe(event)) }
                if applied.isEmpty { Console.line("database is up to date") }
            }
        }
    }

    struct Down: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revert the most recently applied migrations.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "How many migrations to revert.") var steps = 1

        func validate() throws {
            guard steps >= 1 else { throw ValidationError("the number of steps must be at least 1") }
        }

        func run() async throws {
            try await withMigrator(database) { migrator in
                let reverted = try await migrator.down(steps: steps) { event in Console.line(describe(event)) }
                if reverted.isEmpty { Console.line("no migration is applied") }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every migration and whether it is applied.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withMigrator(database) { migrator in
                var pending = 0
                for status in try await migrator.status() {
                    let state: String
                    switch status.state {
                    case .pending:
                        state = "pending"
                        pending += 1
                    case .applied(let date): state = "applied \(date.formatted(.iso8601))"
                    case .edited(let date): state = "EDITED since it was applied \(date.formatted(.iso8601))"
                    case .missingFile(let date): state = "applied \(date.formatted(.iso8601)), file missing"
                    }
                    Console.line(String(format: "%04d %@  %@", status.version, status.name, state))
                }
                Console.line(pending == 0 ? "database is up to date" : "\(pending) pending")
            }
        }
    }
}

private func withMigrator(_ options: DatabaseOptions, _ body: (Migrator) async throws -> Void) async throws {
    let configuration = try HeraldConfiguration.resolve(database: options)
    let logger = configuration.logger(label: "herald.migrate")
    let client = try configuration.oneSessionClient(label: "herald.migrate")
    try await client.closing {
        try await body(
            try Migrator(client: client, migrations: try configuration.database.migrations(), logger: logger))
    }
}

private func describe(_ event: MigrationEvent) -> String {
    let verb = event.direction == .up ? "applied" : "reverted"
    let milliseconds =
        Double(event.duration.components.attoseconds) / 1e15 + Double(event.duration.components.seconds) * 1000
    return String(format: "%@ %04d_%@ (%.0f ms)", verb, event.version, event.name, milliseconds)
}
