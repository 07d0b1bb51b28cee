import ArgumentParser
import Foundation
import HeraldCore
import LocalServices
import Logging
import Postgres

/// `herald dev`: everything Herald needs, started on this machine with nothing to configure.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Run Herald on a private PostgreSQL kept in a local folder (Ctrl-C stops it).")

    @Option(help: ArgumentHelp("Folder for the private PostgreSQL's data.", valueName: "dir"))
    var dataDir = ".herald/postgres"

    @Option(help: ArgumentHelp("Folder of numbered SQL migrations. Default: ./Migrations.", valueName: "dir"))
    var migrations: String?

    func run() async throws {
        let logger = Logger(label: "herald.dev")
        let shutdown = ShutdownSignal()
        var directory = URL(fileURLWithPath: dataDir).standardizedFileURL
        if !(await EmbeddedPostgres.canKeepData(in: directory)) {
            // As root, PostgreSQL runs as an unprivileged account that cannot enter folders such as /root.
            let fallback = URL(fileURLWithPath: "/var/tmp/herald-dev")
                .appendingPathComponent(directory.path.replacingOccurrences(of: "/", with: "_"))
            Console.line("PostgreSQL's account cannot reach \(directory.path); keeping its data in \(fallback.path)")
            directory = fallback
        }
        Console.line("starting PostgreSQL in \(directory.path) …")
        let postgres = try await EmbeddedPostgres.start(options: .init(directory: directory, durable: true))
        do {
            let client = PostgresClient(configuration: try PostgresConfiguration(postgres.url()), logger: logger)
            defer { client.shutdown() }
            let migrationFiles = try DatabaseOptions.loadMigrations(from: migrations)
            try await Migrator(client: client, migrations: migrationFiles, logger: logger).up { event in
                Console.line("applied \(String(format: "%04d", event.version))_\(event.name)")
            }
            Console.line(
                """

                Herald's database is ready.
                  DATABASE_URL=\(postgres.url())

                Press Ctrl-C to stop.
                """)
            await shutdown.wait()
            Console.line()
            Console.line("stopping …")
        } catch {
            await postgres.stop()
            throw error
        }
        await postgres.stop()
    }
}
