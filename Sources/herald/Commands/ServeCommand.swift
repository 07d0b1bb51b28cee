import APNs
import APNsCore
import ArgumentParser
import CoreMetrics
import Cryptography
import Foundation
import HeraldCore
import HeraldServer
import Logging
import Postgres

/// `herald serve`: the HTTP API, the expansion loop and (when APNs is configured) the delivery engine, until
/// SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve Herald's HTTP API, expand accepted notifications and deliver them to APNs.",
        discussion: """
            Settings come from flags, else the environment, else defaults: HERALD_HOST (127.0.0.1), HERALD_PORT \
            (8080), HERALD_MAX_BODY_BYTES (65536), HERALD_DATABASE_POOL_SIZE (16), HERALD_LOG_LEVEL (info), \
            HERALD_USER_JWT_SECRET (HS256 user tokens), HERALD_USER_JWT_PUBLIC_KEY (PEM file, ES256 user tokens), \
            APNS_PRODUCTION (registrations default to production when true). With an APNs key configured \
            (APNS_KEY_PATH or --apns-key-path) it also runs the delivery engine, as `herald worker` does; without \
            one, deliveries wait for a worker. SIGTERM or SIGINT stop it gracefully.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var apns: APNsOptions
    @OptionGroup var delivery: DeliveryOptions

    @Option(help: "Address to listen on. Default: $HERALD_HOST, else 127.0.0.1.") var host: String?
    @Option(help: "Port to listen on (0: any free port). Default: $HERALD_PORT, else 8080.") var port: Int?
    @Option(help: "Largest request body in bytes. Default: $HERALD_MAX_BODY_BYTES, else 65536.") var maxBodyBytes: Int?
    @Option(help: "Database sessions to keep. Default: $HERALD_DATABASE_POOL_SIZE, else 16.") var databasePoolSize: Int?
    @Option(
        help: ArgumentHelp(
            "PEM public key (P-256) for ES256 user tokens. Default: $HERALD_USER_JWT_PUBLIC_KEY.", valueName: "file"))
    var userJWTPublicKey: String?
    @Flag(help: "Apply pending migrations before serving.") var migrate = false
    @Flag(inversion: .prefixedNo, help: "Expand accepted notifications in this process (default on).")
    var expand = true
    @Flag(inversion: .prefixedNo, help: "Deliver to APNs in this process when a key is configured (default on).")
    var deliver = true

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0 to 65535") }
        if let maxBodyBytes, maxBodyBytes < 1024 { throw ValidationError("--max-body-bytes must be at least 1024") }
        if let databasePoolSize, databasePoolSize < 1 { throw ValidationError("--database-pool-size must be positive") }
    }

    func run() async throws {
        let shutdown = ShutdownSignal()
        let environment = ProcessInfo.processInfo.environment
        let logger = try Logger.herald(label: "herald", environment: environment)
        let settings = try serverSettings(environment)
        let postgres = try database.configuration()
        let poolSize = try databasePoolSize ?? integer(environment, "HERALD_DATABASE_POOL_SIZE") ?? 16
        let client = PostgresClient(
            configuration: postgres, options: .init(maximumConnections: poolSize), logger: logger)
        defer { client.shutdown() }
        if migrate {
            try await Migrator(client: client, migrations: try database.loadMigrations(), logger: logger).up { event in
                logger.info("applied migration \(event.version) \(event.name)")
            }
        }
        let gateway = Gateway(
            client: client, listener: expand ? postgres : nil, settings: settings,
            delivery: try deliveryRuntime(
                client: client, environment: environment, metrics: settings.metrics.deliveryMetricsFactory,
                logger: logger),
            logger: logger)
        try await gateway.run(until: { await shutdown.wait() }) { port in
            logger.notice("Herald is serving on \(settings.host):\(port)")
        }
    }

    /// The delivery engine and its APNs pools, or `nil` when delivering here is off or no APNs key is set.
    private func deliveryRuntime(
        client: PostgresClient, environment: [String: String], metrics: any MetricsFactory, logger: Logger
    ) throws -> DeliveryRuntime? {
        guard deliver else { return nil }
        guard apns.keyPath ?? environment["APNS_KEY_PATH"] != nil else {
            logger.notice("no APNs key configured (APNS_KEY_PATH): deliveries wait for a `herald worker`")
            return nil
        }
        let apnsSettings = try APNsSettings.resolve(environment: environment, flags: apns.flags)
        let configuration = try delivery.configuration(
            bundleID: apnsSettings.bundleID, keyID: apnsSettings.keyID, environment: environment)
        guard configuration.bundleID != nil else {
            throw CommandFailure("no topic: set APNS_BUNDLE_ID or pass --apns-bundle-id")
        }
        return try DeliveryRuntime(
            client: client, settings: apnsSettings, configuration: configuration,
            environment: environment, metrics: metrics, logger: logger)
    }

    private func serverSettings(_ environment: [String: String]) throws -> ServerSettings {
        var settings = ServerSettings()
        settings.host = host ?? environment["HERALD_HOST"] ?? settings.host
        settings.port = try port ?? integer(environment, "HERALD_PORT") ?? settings.port
        settings.maxBodySize = try maxBodyBytes ?? integer(environment, "HERALD_MAX_BODY_BYTES") ?? settings.maxBodySize
        let secret = environment["HERALD_USER_JWT_SECRET"].map { Array($0.utf8) }
        var publicKey: P256PublicKey?
        if let path = userJWTPublicKey ?? environment["HERALD_USER_JWT_PUBLIC_KEY"], !path.isEmpty {
            do {
                publicKey = try P256PublicKey(contentsOfFile: path)
            } catch {
                throw CommandFailure("HERALD_USER_JWT_PUBLIC_KEY: \(error)")
            }
        }
        settings.userTokens = UserTokenVerifier(hmacSecret: secret, publicKey: publicKey)
        let production: Bool
        do {
            production = try APNsSettings.defaultsToProduction(environment: environment, flag: apns.production)
        } catch {
            throw CommandFailure(error.description)
        }
        settings.defaultEnvironment = production ? .production : .sandbox
        settings.openAPIDocument = OpenAPIDocument.load()
        return settings
    }

    private func integer(_ environment: [String: String], _ name: String) throws -> Int? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw CommandFailure("\(name) must be a whole number") }
        return value
    }
}
