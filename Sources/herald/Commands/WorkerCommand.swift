import APNs
import APNsCore
import ArgumentParser
import CoreMetrics
import Foundation
import HeraldCore
import Logging
import Postgres
import ServiceLifecycle

/// `herald worker`: runs only the delivery engine, for processes that deliver without serving the API.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Deliver pending notifications to APNs (the delivery engine without the HTTP API).",
        discussion: """
            Claims due deliveries from the database, sends them to APNs and records the results. Run any
            number side by side against one database. SIGTERM or SIGINT stops claiming, finishes or releases
            what is in flight, closes the APNs connections and exits 0.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var apns: APNsOptions
    @OptionGroup var delivery: DeliveryOptions

    func run() async throws {
        let configuration = try HeraldConfiguration.resolve(database: database, apns: apns, delivery: delivery)
        let traceExport = try TraceExport.start(configuration.tracing, logLevel: configuration.logLevel)
        let logger = configuration.logger(label: "herald.worker")
        let apnsSettings = try configuration.requireAPNs()
        let engine = try configuration.delivery.engineConfiguration(for: apnsSettings)
        let client = PostgresClient(
            configuration: try configuration.database.configuration(),
            options: .init(maximumConnections: configuration.delivery.enginePoolSize), logger: logger)
        try await client.closing {
            let runtime = try DeliveryRuntime(
                client: client, settings: apnsSettings, configuration: engine, webhook: configuration.webhook,
                masterKey: configuration.masterKey,
                metrics: NOOPMetricsHandler.instance, logger: logger)
            await runtime.defineDefaults()
            await runtime.prepare()
            // The engine writes the log, so the days it writes into are made here too (see `LogPartitions`).
            let upkeep = LogPartitionUpkeep(client: client, logger: logger)
            let services = (traceExport.map { [$0] } ?? []) + [upkeep] + runtime.services
            try await ServiceGroup.stoppedBySignals(services, logger: logger).run()
        }
    }
}
