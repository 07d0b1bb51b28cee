import APNs
import APNsCore
import ArgumentParser
import CoreMetrics
import Cryptography
import Foundation
import HeraldCore
import HeraldIngress
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
            (8080), HERALD_MAX_BODY_BYTES (65536), HERALD_DATABASE_POOL_SIZE (16, the API's sessions), \
            HERALD_API_STATEMENT_TIMEOUT_SECONDS (5), HERALD_ENGINE_POOL_SIZE (delivery workers + 8, the \
            engine's and expansion's), HERALD_LOG_LEVEL (info), \
            HERALD_USER_JWT_SECRET (HS256 user tokens), HERALD_USER_JWT_PUBLIC_KEY (PEM file, ES256 user tokens), \
            APNS_PRODUCTION (registrations default to production when true), HERALD_APNS_INGRESS_PORT (with \
            HERALD_APNS_INGRESS_CERT_FILE and HERALD_APNS_INGRESS_KEY_FILE: Apple's provider API for existing APNs \
            clients). With an APNs key configured \
            (APNS_KEY_PATH or --apns-key-path) it also runs the delivery engine, as `herald worker` does; without \
            one, deliveries wait for a worker. SIGTERM or SIGINT stop it gracefully.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var apns: APNsOptions
    @OptionGroup var delivery: DeliveryOptions
    @OptionGroup var server: ServerOptions

    @Flag(help: "Apply pending migrations before serving.") var migrate = false
    @Flag(inversion: .prefixedNo, help: "Expand accepted notifications in this process (default on).")
    var expand = true
    @Flag(inversion: .prefixedNo, help: "Deliver to APNs in this process when a key is configured (default on).")
    var deliver = true

    func run() async throws {
        let configuration = try HeraldConfiguration.resolve(
            database: database, apns: apns, delivery: delivery, server: server, sends: deliver)
        let traceExport = try TraceExport.start(configuration.tracing, logLevel: configuration.logLevel)
        let logger = configuration.logger(label: "herald")
        let settings = try Self.serverSettings(configuration)
        let postgres = try configuration.database.configuration()
        let client = PostgresClient(
            configuration: try configuration.database.apiConfiguration(),
            options: .init(maximumConnections: configuration.database.poolSize),
            logger: logger)
        let engineClient = PostgresClient(
            configuration: postgres, options: .init(maximumConnections: configuration.delivery.enginePoolSize),
            logger: logger)
        try await client.closing {
            try await engineClient.closing {
                if migrate {
                    try await Migrator(
                        client: engineClient, migrations: try configuration.database.migrations(), logger: logger
                    ).up { event in logger.info("applied migration \(event.version) \(event.name)") }
                }
                let gateway = Gateway(
                    client: client, engineClient: engineClient, listener: expand ? postgres : nil,
                    settings: settings,
                    delivery: try deliveryRuntime(
                        client: engineClient, configuration: configuration,
                        metrics: settings.metrics.deliveryMetricsFactory, logger: logger),
                    webhook: configuration.webhook, traceExport: traceExport,
                    ingress: try Self.ingress(configuration, client: client, logger: logger), logger: logger)
                try await gateway.run(onServing: { port in
                    logger.notice("Herald is serving on \(settings.host):\(port)")
                })
            }
        }
    }

    /// The delivery engine and its APNs pools, or `nil` when delivering here is off or no APNs key is set.
    private func deliveryRuntime(
        client: PostgresClient, configuration: HeraldConfiguration, metrics: any MetricsFactory, logger: Logger
    ) throws -> DeliveryRuntime? {
        guard deliver else { return nil }
        guard let apnsSettings = configuration.apns else {
            logger.notice("no APNs key configured (APNS_KEY_PATH): deliveries wait for a `herald worker`")
            return nil
        }
        return try DeliveryRuntime(
            client: client, settings: apnsSettings,
            configuration: try configuration.delivery.engineConfiguration(for: apnsSettings),
            webhook: configuration.webhook, masterKey: configuration.masterKey, metrics: metrics, logger: logger)
    }

    /// The APNs ingress, when `HERALD_APNS_INGRESS_PORT` is set; it stores pushes through the API's pool.
    private static func ingress(_ configuration: HeraldConfiguration, client: PostgresClient, logger: Logger) throws
        -> APNsIngress?
    {
        guard let settings = configuration.ingress else { return nil }
        do {
            return try APNsIngress(
                configuration: try settings.configuration(masterKey: configuration.masterKey),
                store: IngressStore(client: client), apiKeys: APIKeyStore(client: client), logger: logger)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("HERALD_APNS_INGRESS_CERT_FILE, HERALD_APNS_INGRESS_KEY_FILE: \(error)")
        }
    }

    private static func serverSettings(_ configuration: HeraldConfiguration) throws -> ServerSettings {
        guard let http = configuration.http else { throw CommandFailure("no HTTP settings were read") }
        var settings = ServerSettings()
        settings.host = http.host
        settings.port = http.port
        settings.maxBodySize = http.maxBodySize
        settings.maxConcurrentRequests = http.maxConcurrentRequests
        settings.rateLimit = http.rateLimit
        settings.refusals = http.refusals
        settings.longestStatsSharing = http.longestStatsSharing
        settings.registrationLimits = http.registrationLimits
        settings.masterKey = configuration.masterKey
        settings.metricsKey = http.metricsKey
        var publicKey: P256PublicKey?
        if let path = http.userJWTPublicKeyPath {
            do {
                publicKey = try P256PublicKey(contentsOfFile: path)
            } catch {
                throw CommandFailure("HERALD_USER_JWT_PUBLIC_KEY: \(error)")
            }
        }
        settings.userTokens = UserTokenVerifier(
            hmacSecret: http.userJWTSecret, publicKey: publicKey, audience: http.userJWTAudience,
            issuer: http.userJWTIssuer)
        settings.defaultEnvironment = PushEnvironment(configuration.defaultEnvironment)
        settings.openAPIDocument = OpenAPIDocument.load()
        return settings
    }
}
