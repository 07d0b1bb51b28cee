import HeraldCore
import HeraldServer
import Logging
import Postgres
import ServiceLifecycle

/// Herald's gateway in one process: the HTTP API, the expansion loop, the delivery log's partitions and, when given,
/// the delivery engine. `herald serve` and `herald dev` both run it, so they start and stop the same way.
///
/// The API has a pool of its own, apart from the engine's: requests that hold every API session (a flood, slow
/// reads) leave expansion, claiming and recording their sessions, so sending goes on at its pace.
struct Gateway {
    private let settings: ServerSettings
    private let services: HeraldServices
    private let delivery: DeliveryRuntime?
    private let partitions: LogPartitions
    private let logger: Logger

    /// - Parameters:
    ///   - client: The API's pool.
    ///   - engineClient: The pool of the expansion loop, the log's upkeep and the engine (which `delivery` was built
    ///     with).
    ///   - listener: Where the expansion loop listens for new notifications; `nil` leaves expansion to another
    ///     process.
    ///   - delivery: The delivery engine to run beside the API; `nil` leaves delivery to a `herald worker`.
    init(
        client: PostgresClient, engineClient: PostgresClient, listener: PostgresConfiguration?,
        settings: ServerSettings,
        delivery: DeliveryRuntime?, logger: Logger
    ) {
        var settings = settings
        settings.deliversHere = delivery != nil
        self.settings = settings
        services = HeraldServices(
            client: client,
            expansion: listener.map {
                ExpansionLoop(client: engineClient, listenerConfiguration: $0, logger: logger)
            },
            apns: delivery?.router, limits: settings.registrationLimits)
        self.delivery = delivery
        partitions = LogPartitions(client: engineClient)
        self.logger = logger
    }

    /// Serves until `stop` returns, then stops in order: the HTTP server (finishing requests in flight) with the
    /// expansion loop, then the engine, so what was accepted until the last request still gets claimed. From the
    /// start the log's partitions for today and the days ahead are made, and kept every hour.
    /// - Parameter onServing: Called with the bound port once the server listens.
    func run(
        until stop: @escaping @Sendable () async -> Void, onServing: @escaping @Sendable (Int) async -> Void
    ) async throws {
        await delivery?.defineDefaults()
        let application = HeraldApplication.make(
            settings: settings, services: services, logger: logger, onServerRunning: onServing)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let (partitions, logger) = (partitions, logger)
        let maintenance = Task { await partitions.maintain(logger: logger) }
        let (served, serverStopped) = AsyncStream<Void>.makeStream()
        let delivering = delivery.map { runtime in
            Task { await runtime.run { for await _ in served {} } }
        }
        let stopper = Task {
            await stop()
            await group.triggerGracefulShutdown()
        }
        defer { stopper.cancel() }
        do {
            try await group.run()
        } catch {
            serverStopped.finish()
            await delivering?.value
            maintenance.cancel()
            await maintenance.value
            throw error
        }
        serverStopped.finish()
        await delivering?.value
        maintenance.cancel()
        await maintenance.value
    }
}
