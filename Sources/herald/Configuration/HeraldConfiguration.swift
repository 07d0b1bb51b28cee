import APNsCore
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import Postgres

/// Everything a `herald` command runs with, read once when it starts: each setting from its flag, else its
/// environment variable, else its default. Commands pass these values down; no module below the executable reads
/// the environment.
///
/// A command reads the parts it has flags for (its option groups), so `herald migrate` never trips over an APNs or
/// webhook setting; a malformed value in a part it reads is refused before anything starts.
struct HeraldConfiguration: Sendable {
    /// `HERALD_LOG_LEVEL` (default info).
    var logLevel: Logger.Level
    var database: DatabaseSettings
    var delivery: DeliveryTuning
    /// `APNS_PRODUCTION` / `--apns-production`: the environment of registrations and pushes that name none.
    var defaultEnvironment = APNsEnvironment.sandbox
    /// APNs, when the command has APNs flags and a signing key is configured (`APNS_KEY_PATH`, `--apns-key-path`).
    var apns: APNsSettings?
    /// `HERALD_WEBHOOK_URL` and `HERALD_WEBHOOK_SECRET`, for commands that deliver.
    var webhook: DeliveryWebhook.Configuration?
    /// The HTTP server, for `herald serve`.
    var http: HTTPSettings?

    /// Reads the settings of the given option groups, plus the log level and the database.
    /// - Parameters:
    ///   - environment: The process environment; tests pass a dictionary.
    ///   - database, apns, delivery, server: The command's option groups; nil for a group it lacks.
    /// - Throws: ``CommandFailure`` naming the setting that is malformed.
    static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment, database: DatabaseOptions? = nil,
        apns: APNsOptions? = nil, delivery: DeliveryOptions? = nil, server: ServerOptions? = nil
    ) throws -> HeraldConfiguration {
        let settings = SettingSource(environment: environment)
        var configuration = HeraldConfiguration(
            logLevel: try settings.logLevel(),
            database: try DatabaseSettings(database, poolSize: server?.databasePoolSize, settings),
            delivery: try DeliveryTuning(delivery, settings))
        do {
            if let flags = apns?.flags {
                let production = try APNsSettings.defaultsToProduction(environment: environment, flag: flags.production)
                configuration.defaultEnvironment = production ? .production : .sandbox
                if settings.string(flags.keyPath, "APNS_KEY_PATH") != nil {
                    configuration.apns = try APNsSettings.resolve(environment: environment, flags: flags)
                }
            }
            if delivery != nil { configuration.webhook = try WebhookSettings.resolve(environment: environment) }
        } catch let error as APNsSettingsError {
            throw CommandFailure(error.description)
        } catch let error as WebhookSettingsError {
            throw CommandFailure(error.description)
        }
        if let server { configuration.http = try HTTPSettings(server, settings) }
        return configuration
    }

    /// APNs, for a command that cannot run without it.
    /// - Throws: ``CommandFailure`` naming the signing key setting when none is configured.
    func requireAPNs() throws -> APNsSettings {
        guard let apns else {
            throw CommandFailure(
                APNsSettingsError.missing(variable: "APNS_KEY_PATH", flag: "--apns-key-path").description)
        }
        return apns
    }

    /// A logger at ``logLevel``.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

/// Where the database is, how many sessions to keep and where the migrations are.
struct DatabaseSettings: Sendable {
    /// `DATABASE_URL` / `--database-url`.
    var url: String?
    /// `HERALD_DATABASE_POOL_SIZE` / `--database-pool-size` (default 16).
    var poolSize: Int
    /// `HERALD_MIGRATIONS_DIR` / `--migrations`; nil: `./Migrations` or the installed folder.
    var migrationsDirectory: String?

    init(url: String? = nil, poolSize: Int = 16, migrationsDirectory: String?) {
        self.url = url
        self.poolSize = poolSize
        self.migrationsDirectory = migrationsDirectory
    }

    init(_ flags: DatabaseOptions?, poolSize poolSizeFlag: Int?, _ settings: SettingSource) throws {
        url = settings.string(flags?.databaseURL, "DATABASE_URL")
        poolSize = try settings.positiveInteger(poolSizeFlag, "HERALD_DATABASE_POOL_SIZE") ?? 16
        migrationsDirectory = settings.string(flags?.migrations, "HERALD_MIGRATIONS_DIR")
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

/// The delivery engine's tuning; the key and bundle id come from ``APNsSettings``.
struct DeliveryTuning: Sendable {
    var workers: Int?
    var batchSize: Int?
    var maximumAttempts: Int?
    var leaseSeconds: Int?

    init(_ flags: DeliveryOptions?, _ settings: SettingSource) throws {
        workers = try settings.positiveInteger(flags?.deliveryWorkers, "HERALD_DELIVERY_WORKERS")
        batchSize = try settings.positiveInteger(flags?.deliveryBatchSize, "HERALD_DELIVERY_BATCH_SIZE")
        maximumAttempts = try settings.positiveInteger(flags?.deliveryMaxAttempts, "HERALD_DELIVERY_MAX_ATTEMPTS")
        leaseSeconds = try settings.positiveInteger(flags?.deliveryLeaseSeconds, "HERALD_DELIVERY_LEASE_SECONDS")
    }

    /// The engine configuration for `apns`'s key and bundle id.
    /// - Throws: ``CommandFailure`` when no bundle id is set: the engine has no topic for devices without one.
    func engineConfiguration(for apns: APNsSettings) throws -> DeliveryEngineConfiguration {
        guard let bundleID = apns.bundleID else {
            throw CommandFailure("no topic: set APNS_BUNDLE_ID or pass --apns-bundle-id")
        }
        var configuration = DeliveryEngineConfiguration(bundleID: bundleID, keyID: apns.keyID)
        if let workers { configuration.workers = workers }
        if let batchSize { configuration.batchSize = batchSize }
        if let maximumAttempts { configuration.policy.maximumAttempts = maximumAttempts }
        if let leaseSeconds { configuration.lease = .seconds(leaseSeconds) }
        return configuration
    }
}

/// Reads a setting from its flag, else its environment variable; an empty variable counts as unset.
struct SettingSource {
    let environment: [String: String]

    func string(_ flag: String?, _ variable: String) -> String? {
        if let flag, !flag.isEmpty { return flag }
        guard let text = environment[variable], !text.isEmpty else { return nil }
        return text
    }

    func integer(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = environment[variable], !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw CommandFailure("\(variable) must be a whole number") }
        return value
    }

    func positiveInteger(_ flag: Int?, _ variable: String) throws -> Int? {
        guard let value = try integer(flag, variable) else { return nil }
        guard value > 0 else { throw CommandFailure("\(variable) must be a positive whole number") }
        return value
    }

    /// `HERALD_LOG_LEVEL`: trace, debug, info, notice, warning, error or critical; default info.
    func logLevel() throws -> Logger.Level {
        guard let text = string(nil, "HERALD_LOG_LEVEL") else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure("HERALD_LOG_LEVEL must be one of \(names), not \"\(text)\"")
        }
        return level
    }
}
