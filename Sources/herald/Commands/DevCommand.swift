import ArgumentParser
import CoreMetrics
import Foundation
import HeraldCore
import HeraldServer
import LocalServices
import Logging
import Postgres
import ServiceLifecycle

/// `herald dev`: everything Herald needs, started on this machine with nothing to configure.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Run Herald with a private PostgreSQL and apns-mock, ready to try (Ctrl-C stops it).",
        discussion: """
            Starts a private PostgreSQL kept in the data folder (a restart keeps its state) and applies the \
            migrations; starts apns-mock on loopback, trusting a signing key kept in the data folder; runs the \
            gateway (HTTP API, expansion and delivery engine) in sandbox mode against the mock on 127.0.0.1; sets \
            up a demo user, a colleague and a demo project. Then prints the URL, a new admin API key (earlier runs' \
            keys are revoked), a user token for the demo user and three curl commands to try (register a device, \
            post an event, read the delivery log), and a line for each push the mock receives. Ctrl-C or SIGTERM \
            stops the server, the engine, the mock and PostgreSQL, in that order.
            """)

    @Option(help: ArgumentHelp("Folder for everything dev keeps between runs.", valueName: "dir"))
    var dataDir = ".herald"

    @Option(help: ArgumentHelp("Folder of numbered SQL migrations. Default: ./Migrations.", valueName: "dir"))
    var migrations: String?

    @Option(help: "Port to listen on (0: any free port). Default: 8080 when free, else any free port.")
    var port: Int?

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0 to 65535") }
    }

    func run() async throws {
        if let port, port != 0, !isLoopbackPortFree(port) {
            throw CommandFailure("port \(port) is in use on 127.0.0.1: pass another --port, or 0 for any free one")
        }
        var configuration = try HeraldConfiguration.resolve()
        configuration.tracing = try TracingSettings.resolve(environment: ProcessInfo.processInfo.environment)
        let traceExport = try TraceExport.start(configuration.tracing, logLevel: configuration.logLevel)
        let logger = configuration.logger(label: "herald.dev")
        let migrationSettings = DatabaseSettings(
            migrationsDirectory: migrations ?? configuration.database.migrationsDirectory)
        let folder = try DevDataFolder(path: dataDir)
        let postgresDirectory = try await folder.postgresDirectory()
        Console.line("starting PostgreSQL in \(postgresDirectory.path) …")
        try await EmbeddedPostgres.withCluster(options: .init(directory: postgresDirectory, durable: true)) {
            postgres in
            try await run(
                on: postgres, migrations: migrationSettings, folder: folder, traceExport: traceExport, logger: logger)
            Console.line("stopping PostgreSQL …")
        }
        Console.line("stopped")
    }

    /// Migrates, starts apns-mock and serves until a signal; stops the mock last.
    private func run(
        on postgres: EmbeddedPostgres, migrations migrationSettings: DatabaseSettings, folder: DevDataFolder,
        traceExport: (any Service)?, logger: Logger
    ) async throws {
        let databaseURL = postgres.url()
        let database = try PostgresConfiguration(databaseURL)
        var apiDatabase = database
        apiDatabase.statementTimeout = DatabaseSettings(migrationsDirectory: nil).apiStatementTimeout
        let client = PostgresClient(configuration: apiDatabase, options: .init(maximumConnections: 16), logger: logger)
        // The engine's sessions apart from the API's, as `herald serve` keeps them.
        let engineClient = PostgresClient(
            configuration: database, options: .init(maximumConnections: 8), logger: logger)
        try await client.closing {
            try await engineClient.closing {
                try await Migrator(client: engineClient, migrations: try migrationSettings.migrations(), logger: logger)
                    .up { event in Console.line("applied \(String(format: "%04d", event.version))_\(event.name)") }
                let apns = try await DevAPNs.start(in: folder)
                Console.line("apns-mock is listening on 127.0.0.1:\(apns.port)")
                do {
                    try await serve(
                        client: client, engineClient: engineClient, database: database, databaseURL: databaseURL,
                        apns: apns, folder: folder, traceExport: traceExport, logger: logger)
                } catch {
                    try? await apns.stop()
                    throw error
                }
                Console.line("stopping apns-mock …")
                try await apns.stop()
            }
        }
    }

    /// Seeds the demo, makes the credentials and runs the gateway until a signal.
    private func serve(
        client: PostgresClient, engineClient: PostgresClient, database: PostgresConfiguration, databaseURL: String,
        apns: DevAPNs,
        folder: DevDataFolder, traceExport: (any Service)?, logger: Logger
    ) async throws {
        try await DevDemo.seed(Directory(client: client))
        let apiKey = try await DevAPIKey.replace(in: APIKeyStore(client: client))
        let secret = try folder.userTokenSecret()
        let userToken = try DevDemo.userToken(secret: secret)

        var settings = ServerSettings()
        settings.port = port ?? (isLoopbackPortFree(8080) ? 8080 : 0)
        settings.userTokens = UserTokenVerifier(hmacSecret: Array(secret.utf8), publicKey: nil)
        settings.defaultEnvironment = .sandbox
        let limits = SettingSource(environment: ProcessInfo.processInfo.environment)
        settings.rateLimit = try HTTPSettings.rateLimit(limits)
        settings.refusals = try HTTPSettings.refusals(limits)
        settings.registrationLimits = try HTTPSettings.registrationLimits(limits)
        settings.openAPIDocument = OpenAPIDocument.load()
        let gateway = Gateway(
            client: client, engineClient: engineClient, listener: database, settings: settings,
            delivery: try apns.deliveryRuntime(
                client: engineClient, metrics: settings.metrics.deliveryMetricsFactory, logger: logger),
            traceExport: traceExport, ingress: try DevIngress.make(in: folder, client: client, logger: logger),
            logger: logger)
        let host = settings.host
        let dataFolder = folder.root.path
        try await gateway.run(
            onServing: { port in
                let welcome = DevWelcome(
                    baseURL: "http://\(host):\(port)", apiKey: apiKey.secret, userToken: userToken,
                    databaseURL: databaseURL, dataFolder: dataFolder)
                Console.line(welcome.text)
            },
            onStopping: {
                Console.line()
                Console.line("stopping the HTTP server and the delivery engine …")
            })
    }
}
