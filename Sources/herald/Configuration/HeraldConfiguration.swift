import APNsCore
import Cryptography
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import Postgres

/// Everything a `herald` command runs with, read once when it starts: each setting from its flag, else its
/// environment variable, else its default. Commands pass these values down; no module below the executable reads
/// the environment.
///
/// A command reads only the parts it uses: the log level and the database always, the rest through its option
/// groups (and APNs keys and the webhook only when it sends), so `herald migrate` never trips over a delivery or
/// APNs setting. A malformed value in a part it reads is refused before anything starts.
struct HeraldConfiguration: Sendable {
    /// `HERALD_LOG_LEVEL` (default info).
    var logLevel: Logger.Level
    var database: DatabaseSettings
    /// The engine's tuning, for commands that deliver.
    var delivery = DeliveryTuning()
    /// `APNS_PRODUCTION` / `--apns-production`: the environment of registrations and pushes that name none.
    var defaultEnvironment = APNsEnvironment.sandbox
    /// APNs, when the command has APNs flags and a signing key is configured (`APNS_KEY_PATH`, `--apns-key-path`).
    var apns: APNsSettings?
    /// `HERALD_WEBHOOK_URL` and `HERALD_WEBHOOK_SECRET`, for commands that deliver or serve the API.
    var webhook: DeliveryWebhook.Configuration?
    /// The HTTP server, for `herald serve`.
    var http: HTTPSettings?
    /// The APNs ingress, for `herald serve` when `HERALD_APNS_INGRESS_PORT` is set.
    var ingress: IngressSettings?
    /// `HERALD_MASTER_KEY_FILE`: seals and opens signing keys kept in the database, for commands that deliver or
    /// serve the API.
    var masterKey: AES256GCM?
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: where commands that deliver or serve the API export their traces; nil for none.
    var tracing: TracingSettings?

    /// Reads the log level, the database, and the settings of the given option groups.
    /// - Parameters:
    ///   - environment: The process environment; tests pass a dictionary.
    ///   - database, apns, delivery, server: The command's option groups; nil for a group it lacks.
    ///   - sends: Whether this run sends pushes: only then is the APNs key read (`herald serve --no-deliver` reads
    ///     none, but still its default environment, and the webhook for the interactions it records).
    /// - Throws: ``CommandFailure`` naming the setting that is malformed.
    static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment, database: DatabaseOptions? = nil,
        apns: APNsOptions? = nil, delivery: DeliveryOptions? = nil, server: ServerOptions? = nil, sends: Bool = true
    ) throws -> HeraldConfiguration {
        let settings = SettingSource(environment: environment)
        var configuration = HeraldConfiguration(
            logLevel: try settings.logLevel(),
            database: DatabaseSettings(database, settings))
        if let delivery {
            configuration.delivery =
                sends ? try DeliveryTuning(delivery, settings) : try DeliveryTuning(poolOnly: delivery, settings)
        }
        do {
            if let flags = apns?.flags {
                let production = try APNsSettings.defaultsToProduction(environment: environment, flag: flags.production)
                configuration.defaultEnvironment = production ? .production : .sandbox
                if sends, settings.string(flags.keyPath, "APNS_KEY_PATH") != nil {
                    configuration.apns = try APNsSettings.resolve(environment: environment, flags: flags)
                }
            }
            // The engine posts what it delivers; the API posts the interactions it records.
            if (sends && delivery != nil) || server != nil {
                configuration.webhook = try WebhookSettings.resolve(environment: environment)
            }
        } catch let error as APNsSettingsError {
            throw CommandFailure(error.description)
        } catch let error as WebhookSettingsError {
            throw CommandFailure(error.description)
        }
        if server != nil || (sends && configuration.apns != nil) {
            configuration.masterKey = try MasterKeySettings.load(environment: environment)
        }
        if server != nil || delivery != nil {
            configuration.tracing = try TracingSettings.resolve(environment: environment)
        }
        if let server {
            let http = try HTTPSettings(server, settings)
            configuration.http = http
            configuration.ingress = try IngressSettings(settings, defaultHost: http.host)
            configuration.database.poolSize =
                try settings.positiveInteger(server.databasePoolSize, "HERALD_DATABASE_POOL_SIZE") ?? 16
            if let seconds = try settings.positiveInteger(
                server.apiStatementTimeoutSeconds, "HERALD_API_STATEMENT_TIMEOUT_SECONDS")
            {
                configuration.database.apiStatementTimeout = .seconds(seconds)
            }
        }
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

extension HeraldConfiguration {
    /// One database session for a short command (`migrate`, `keys`, `logs`, …), logging at ``logLevel``.
    func oneSessionClient(label: String) throws -> PostgresClient {
        PostgresClient(
            configuration: try database.configuration(), options: .init(maximumConnections: 1),
            logger: logger(label: label))
    }
}
