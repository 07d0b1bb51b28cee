import Foundation
import HeraldCore
import Postgres

/// Where the database is, how many sessions to keep and where the migrations are.
struct DatabaseSettings: Sendable {
    /// `DATABASE_URL` / `--database-url`.
    var url: String?
    /// `HERALD_DATABASE_POOL_SIZE` / `--database-pool-size` (default 16), for `herald serve`.
    var poolSize: Int
    /// `HERALD_API_STATEMENT_TIMEOUT_SECONDS` / `--api-statement-timeout-seconds` (default 5): the server cancels an
    /// API statement that runs longer, for `herald serve`; the engine's sessions have none.
    var apiStatementTimeout: Duration = .seconds(5)
    /// `HERALD_MIGRATIONS_DIR` / `--migrations`; nil: `./Migrations` or the installed folder.
    var migrationsDirectory: String?

    init(url: String? = nil, poolSize: Int = 16, migrationsDirectory: String?) {
        self.url = url
        self.poolSize = poolSize
        self.migrationsDirectory = migrationsDirectory
    }

    /// The URL and the migrations; the pool size is `herald serve`'s (see ``HeraldConfiguration``).
    init(_ flags: DatabaseOptions?, _ settings: SettingSource) {
        url = settings.string(flags?.databaseURL, "DATABASE_URL")
        poolSize = 16
        migrationsDirectory = settings.string(flags?.migrations, "HERALD_MIGRATIONS_DIR")
    }

    /// The connection settings of the API's sessions: ``configuration()`` with ``apiStatementTimeout``.
    func apiConfiguration() throws -> PostgresConfiguration {
        var configuration = try configuration()
        configuration.statementTimeout = apiStatementTimeout
        return configuration
    }

    /// The connection settings.
    /// - Throws: ``CommandFailure`` naming both ways to set the database when neither was used.
    func configuration() throws -> PostgresConfiguration {
        guard let url else {
            throw CommandFailure("no database: pass --database-url or set DATABASE_URL (or run `herald dev`)")
        }
        return try PostgresConfiguration(url)
    }

    /// The migrations folder's contents.
    func migrations() throws -> [Migration] {
        guard let directory = migrationsDirectory.map({ URL(fileURLWithPath: $0) }) ?? HeraldSchema.defaultDirectory()
        else {
            throw CommandFailure("no Migrations folder here: pass --migrations DIR or set HERALD_MIGRATIONS_DIR")
        }
        return try HeraldSchema.migrations(in: directory)
    }
}
