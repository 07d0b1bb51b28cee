import APNs
import APNsCore
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import Postgres

/// The delivery engine with its APNs pools (sandbox and production side by side) and webhook, wired from
/// settings: what `herald worker` runs alone and `herald serve` runs beside the API.
struct DeliveryRuntime {
    let engine: DeliveryEngine
    let pools: [APNsConnectionPool]

    init(
        client: PostgresClient, settings: APNsSettings, configuration: DeliveryEngineConfiguration,
        environment: [String: String], logger: Logger
    ) throws {
        let tokens = try settings.makeTokenSource(logger: logger)
        let sandbox = try APNsConnectionPool(
            configuration: settings.clientConfiguration(for: .sandbox), tokens: tokens, logger: logger)
        let production = try APNsConnectionPool(
            configuration: settings.clientConfiguration(for: .production), tokens: tokens, logger: logger)
        let webhook = try WebhookSettings.resolve(environment: environment).map {
            DeliveryWebhook(configuration: $0, logger: logger)
        }
        let metrics = DeliveryMetrics()
        metrics.setConnections(settings.connections * 2)
        engine = DeliveryEngine(
            client: client, transports: DeliveryTransports(sandbox: sandbox, production: production),
            configuration: configuration, metrics: metrics, webhook: webhook, logger: logger)
        pools = [sandbox, production]
    }

    /// Runs the pools and the engine until `stop` returns (a signal), then shuts down in order: stop
    /// claiming, finish or release what is in flight, close the APNs connections.
    func run(until stop: @escaping @Sendable () async -> Void) async {
        let poolTasks = pools.map { pool in Task { await pool.run() } }
        let engine = engine
        let engineTask = Task { await engine.run() }
        let stopper = Task {
            await stop()
            engine.shutdownGracefully()
        }
        await engineTask.value
        stopper.cancel()
        for task in poolTasks { task.cancel() }
        for task in poolTasks { await task.value }
    }
}
