import ArgumentParser
import Foundation
import HeraldCore
import Postgres

/// Where the database is and where its migrations are: flags first, then the environment.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL or key=value connection string. Default: $DATABASE_URL.")
    var databaseURL: String?

    @Option(
        help: ArgumentHelp(
            "Folder of numbered SQL migrations. Default: $HERALD_MIGRATIONS_DIR, else ./Migrations.",
            valueName: "dir"))
    var migrations: String?

    /// The database configuration; throws a usage error naming both ways to set it when neither is given.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> PostgresConfiguration
    {
        guard let url = databaseURL ?? environment["DATABASE_URL"], !url.isEmpty else {
            throw CommandFailure("no database: pass --database-url or set DATABASE_URL (or run `herald dev`)")
        }
        return try PostgresConfiguration(url)
    }

    /// The migrations folder's contents.
    func loadMigrations(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [Migration] {
        try Self.loadMigrations(from: migrations, environment: environment)
    }

    /// The migrations in `folder`, else `$HERALD_MIGRATIONS_DIR`, else the default location.
    static func loadMigrations(
        from folder: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> [Migration] {
        let configured = folder ?? environment["HERALD_MIGRATIONS_DIR"]
        guard let directory = configured.map({ URL(fileURLWithPath: $0) }) ?? HeraldSchema.defaultDirectory() else {
            throw CommandFailure("no Migrations folder here: pass --migrations DIR or set HERALD_MIGRATIONS_DIR")
        }
        return try HeraldSchema.migrations(in: directory)
    }
}
