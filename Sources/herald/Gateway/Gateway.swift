import HeraldCore
import HeraldServer
import HeraldWebhook
import Logging
import Postgres
import ServiceLifecycle
import UnixSignals

/// Herald's gateway in one process: the HTTP API, the expansion loop, the delivery log's partitions and, when given,
/// the delivery engine. `herald serve` and `herald dev` both run it, so they start and stop the same way.
///
/// The API has a pool of its own, apart from the engine's: requests that hold every API session (a flood, slow
/// reads) leave expansion, claiming and recording their sessions, so sending goes on at its pace.
struct Gateway {
    private let settings: ServerSettings
    private let services: HeraldServices
    private let delivery: DeliveryRuntime?
    private let partitionUpkeep: LogPartitionUpkeep
    /// Posts the interactions the API records; the engine has its own for what it delivers.
    private let interactionWebhook: DeliveryWebhook?
    /// Exports the process's spans (``TraceExport``); started first and stopped last.
    private let traceExport: (any Service)?
    /// The APNs ingress, when it is on; started after the engine, so it stops (answering its streams in flight)
    /// while the engine still delivers.
    private let ingress: (any Service)?
    private let logger: Logger

    /// - Parameters:
    ///   - client: The API's pool.
    ///   - engineClient: The pool of the expansion loop, the log's upkeep and the engine (which `delivery` was built
    ///     with).
    ///   - listener: Where the expansion loop listens for new notifications; `nil` leaves expansion to another
    ///     process.
    ///   - delivery: The delivery engine to run beside the API; `nil` leaves delivery to a `herald worker`.
    ///   - webhook: Where to post the interactions the API records (`HERALD_WEBHOOK_URL`); `nil` for none.
    ///   - traceExport: The span exporter when tracing is on.
    ///   - ingress: The APNs ingress when it is on.
    init(
        client: PostgresClient, engineClient: PostgresClient, listener: PostgresConfiguration?,
        settings: ServerSettings,
        delivery: DeliveryRuntime?, webhook: DeliveryWebhook.Configuration? = nil, traceExport: (any Service)? = nil,
        ingress: (any Service)? = nil, logger: Logger
    ) {
        var settings = settings
        settings.deliversHere = delivery != nil
        self.settings = settings
        interactionWebhook = webhook.map { DeliveryWebhook(configuration: $0, logger: logger) }
        services = HeraldServices(
            client: client,
            expansion: listener.map {
                ExpansionLoop(client: engineClient, listenerConfiguration: $0, logger: logger)
            },
            apns: delivery?.router, limits: settings.registrationLimits, interactionEvents: interactionWebhook)
        self.delivery = delivery
        self.traceExport = traceExport
        self.ingress = ingress
        partitionUpkeep = LogPartitionUpkeep(client: engineClient, logger: logger)
        self.logger = logger
    }

    /// Serves until SIGTERM or SIGINT, then stops in the reverse of the start order: the HTTP server (finishing
    /// requests in flight) with the expansion loop, then the APNs ingress (answering its streams in flight), then the
    /// engine, so what was accepted until the last request still gets claimed, then the APNs connections, the upkeep
    /// of the day partitions (for today and the days ahead, from the start and every hour) and, last, the span
    /// exporter.
    /// - Parameters:
    ///   - onServing: Called with the bound port once the server listens.
    ///   - onStopping: Called when a signal begins the shutdown.
    func run(
        onServing: @escaping @Sendable (Int) async -> Void, onStopping: @escaping @Sendable () -> Void = {}
    ) async throws {
        await delivery?.defineDefaults()
        await delivery?.prepare()
        let application = HeraldApplication.make(
            settings: settings, services: services, logger: logger, onServerRunning: onServing)
        let services: [any Service] =
            (traceExport.map { [$0] } ?? []) + [partitionUpkeep] + (delivery?.services ?? [])
            + (interactionWebhook.map { [$0] } ?? []) + (ingress.map { [$0] } ?? [])
            + [application, StopAnnouncement(announce: onStopping)]
        try await ServiceGroup.stoppedBySignals(services, logger: logger).run()
    }
}

extension ServiceGroup {
    /// Runs `services` until SIGTERM or SIGINT, then shuts them down gracefully, last started first.
    static func stoppedBySignals(_ services: [any Service], logger: Logger) -> ServiceGroup {
        ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    }
}

/// Calls `announce` when the group begins to stop: started last, it is the first told.
struct StopAnnouncement: Service {
    let announce: @Sendable () -> Void

    func run() async throws {
        try await gracefulShutdown()
        announce()
    }
}
