import APNs
import APNsCore
import APNsMock
import ArgumentParser
import Cryptography
import Foundation
import HeraldCore
import LocalServices
import Logging
import Postgres
import Tracing

/// Measures the delivery engine end to end — delivery rows in PostgreSQL to `apns-mock` over TLS and
/// HTTP/2, results and one log row per push written back — beside the raw APNs client on the same
/// mock in the same run.
@main
struct DeliveryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivery-bench", abstract: "Measure the delivery engine against the raw APNs client.")

    @Option(help: "Deliveries to send through the engine.") var deliveries = 100_000
    @Option(help: "Pushes for the raw client measurement.") var rawRequests = 100_000
    @Option(help: "Devices; each notification fans out to all of them.") var devices = 1_000
    @Option(help: "Latency: deliveries written per second while the latency is measured.") var latencyRate = 5_000
    @Option(help: "Latency: seconds of steady arrivals.") var latencySeconds = 10
    @Option(help: "APNs connections.") var connections = 2
    @Option(help: "Raw client: pushes awaiting an answer at once.") var inFlight = 2_000
    @Option(help: "Engine claim loops.") var workers = 4
    @Option(help: "Engine batch size.") var batchSize = 500
    @Option(help: "Engine send window: pushes always allowed in flight.") var windowFloor = InFlightLimit.Bounds().floor
    @Option(help: "Engine send window: pushes never exceeded in flight.")
    var windowCeiling = InFlightLimit.Bounds().ceiling
    @Option(help: "Engine send window over the measured bandwidth-delay product.")
    var windowHeadroom = InFlightLimit.Bounds().headroom
    @Option(help: "Fairness: deliveries of the fan-out that single sends of another app run beside.")
    var fairnessDeliveries = 100_000
    @Flag(help: "Run PostgreSQL without fsync (faster, not what production does).") var nonDurable = false
    @Flag(help: "Send each push from a task of its own, as the engine did before the batch path (for comparison).")
    var taskPerPush = false

    static let keyID = "BENCHKEY01"
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.herald"

    func validate() throws {
        guard deliveries > 0, rawRequests > 0, devices > 0, connections > 0, workers > 0, batchSize > 0,
            fairnessDeliveries > 0
        else {
            throw ValidationError("every count must be at least 1")
        }
    }

    var windowBounds: InFlightLimit.Bounds {
        InFlightLimit.Bounds(floor: windowFloor, ceiling: windowCeiling, headroom: windowHeadroom)
    }

    func run() async throws {
        try await EmbeddedPostgres.withDatabase(
            url: ProcessInfo.processInfo.environment["DATABASE_URL"], options: .init(durable: !nonDurable)
        ) { url in try await measure(databaseURL: url) }
    }

    /// Every measurement against the database at `url`.
    private func measure(databaseURL url: String) async throws {
        var logger = Logger(label: "delivery-bench")
        logger.logLevel = .warning
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: workers + 8),
            logger: logger)
        try await Migrator(
            client: client, migrations: try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!),
            logger: logger
        ).up()
        // A database migrated days ago (DATABASE_URL) may lack today's log partition, as a running gateway would not.
        try await LogPartitions(client: client).ensure()
        let settings = try await client.query(
            """
            SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings
            WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers')
            """
        ).scalar(String.self)
        print("PostgreSQL: \(settings)")

        let key = TestSigningKey.generate(keyID: Self.keyID)
        let mock = try APNsMockServer(
            configuration: APNsMockConfiguration(
                teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM], recordsRequests: false))
        try await mock.start()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-bench-ca-\(UUID()).pem")
            .path
        try mock.certificateAuthority.writeCACertificate(to: caFile)
        let tokens = ProviderTokenSource(
            key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: Self.keyID, teamID: Self.teamID, logger: logger)
        let pool = try APNsConnectionPool(
            configuration: APNsClientConfiguration(
                endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), connectionCount: connections,
                requestTimeout: .seconds(60), tls: TLSClientConfiguration(additionalCAFile: caFile)),
            tokens: tokens, logger: logger)
        let poolTask = Task { await pool.run() }
        let meter = try await CPUMeter(client: client)

        let raw = try await rawClientRate(pool: pool, meter: meter)
        print(
            String(format: "raw APNs client: %d pushes in %.2f s = %.0f pushes/s", rawRequests, raw.seconds, raw.rate))
        print("raw APNs client: " + raw.cpu.perUnit(rawRequests, unit: "push"))

        let engine = try await engineRun(client: client, pool: pool, meter: meter, logger: logger)
        print(
            String(
                format: "delivery engine: %d deliveries in %.2f s = %.0f deliveries/s (%.0f%% of the raw client)",
                deliveries, engine.seconds, engine.rate, 100 * engine.rate / raw.rate))
        print("delivery engine: " + engine.cpu.perUnit(deliveries, unit: "delivery"))
        printBudget(raw: raw.cpu)
        print(
            String(
                format: "row-to-APNs latency at %d deliveries/s: p50 %.1f ms, p99 %.1f ms (%d deliveries); %d log rows",
                engine.steadyRate, engine.p50, engine.p99, engine.steadyCount, engine.logs))
        // One line for Benchmarks/run-all: what | Herald | reference | ratio | goal.
        print(
            String(
                format: "result: delivery engine, %d deliveries, durable PostgreSQL, apns-mock | %.0f deliveries/s | "
                    + "raw client %.0f pushes/s | %.2f | ≥ 0.8", deliveries, engine.rate, raw.rate,
                engine.rate / raw.rate))
        print(
            String(
                format: "result: row-to-APNs latency at %d deliveries/s | p99 %.1f ms | p50 %.1f ms | — | —",
                engine.steadyRate, engine.p99, engine.p50))

        // The engine's old row versions are cleaned up first: an engine writing only log rows would leave none, and
        // autovacuum working through them would slow the floor down.
        try await client.execute("VACUUM deliveries")
        let floor = try await LogRowFloor(client: client, rows: rawRequests, batchSize: batchSize)
        let logged = try await rawClientRate(pool: pool, meter: meter, logRows: floor)
        print(
            String(
                format: "raw APNs client writing the engine's log rows: %d pushes in %.2f s = %.0f pushes/s "
                    + "(%.0f%% of the raw client)", rawRequests, logged.seconds, logged.rate,
                100 * logged.rate / raw.rate))
        print("raw APNs client writing the engine's log rows: " + logged.cpu.perUnit(rawRequests, unit: "push"))
        print(
            String(
                format: "result: raw client + each batch's log rows (one COPY and commit), the most an engine that "
                    + "logs every push can reach | %.0f pushes/s | raw client %.0f pushes/s | %.2f | ≥ 0.8",
                logged.rate,
                raw.rate,
                logged.rate / raw.rate))
        print(
            String(
                format: "result: delivery engine against that ceiling | %.0f deliveries/s | ceiling %.0f pushes/s | "
                    + "%.2f | ≥ 0.9", engine.rate, logged.rate, engine.rate / logged.rate))

        let fairness = try await fairnessRun(client: client, pool: pool, logger: logger)
        print("fairness, where the single sends' time goes: " + fairness.stages.summary)
        print(
            String(
                format: "result: single time-sensitive sends of another app during a %d-delivery fan-out, row to APNs "
                    + "| p99 %.0f ms | p50 %.0f ms | — | p99 ≤ 250 ms", fairnessDeliveries, fairness.p99, fairness.p50))
        // The two lines a reader looks for, last, each from its own runs.
        print(
            String(
                format: "engine: %.0f deliveries/s = %.0f%% of the raw client, %.0f%% of the ceiling; ceiling %.0f "
                    + "pushes/s = %.0f%% of the raw client", engine.rate, 100 * engine.rate / raw.rate,
                100 * engine.rate / logged.rate, logged.rate, 100 * logged.rate / raw.rate))
        print(
            String(
                format: "fairness: single sends p99 %.0f ms (p50 %.0f ms) during a %d-delivery fan-out", fairness.p99,
                fairness.p50, fairnessDeliveries))

        poolTask.cancel()
        await poolTask.value
        try await mock.stop()
        client.shutdown()
        try? FileManager.default.removeItem(atPath: caFile)
    }

    /// How much of the machine a delivery may use for the engine to reach 0.8 of the raw client (the CPU lines above
    /// say what each used): at 0.8 of the raw client's rate, a delivery has the machine's whole capacity (every
    /// core, never idle) divided by that rate, and no more.
    private func printBudget(raw: CPUMeter.Reading) {
        print(
            String(
                format: "at 0.8 of the raw client a delivery may use %.1f µs of the machine's CPU (every core, never "
                    + "idle)", raw.machineTotal * 1e6 / Double(rawRequests) / 0.8))
    }

    /// The raw client: `rawRequests` pushes in batches of `batchSize` through the engine's batch path, with
    /// `inFlight` pushes awaiting an answer at once, as apns-bench measures. The pushes are the engine's, built
    /// beforehand: the same notification fanned out to the same devices, with the same headers and payload.
    /// With `logRows`, each batch's answers are followed by that batch's log rows, written as the engine writes them.
    private func rawClientRate(
        pool: APNsConnectionPool, meter: CPUMeter, logRows: LogRowFloor? = nil
    ) async throws -> (seconds: Double, rate: Double, cpu: CPUMeter.Reading) {
        let requests = try DeliveryRowWriter.pushes(count: rawRequests, devices: devices, bundleID: Self.bundleID)
        let batches = stride(from: 0, to: requests.count, by: batchSize).map {
            Array(requests[$0..<min($0 + batchSize, requests.count)])
        }
        let senders = max(1, min(inFlight / batchSize, batches.count))
        let cpuBefore = meter.read()
        let started = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    var failures = 0
                    for index in stride(from: sender, to: batches.count, by: senders) {
                        for await chunk in pool.send(batches[index]) {
                            for answer in chunk { if case .accepted = answer.result {} else { failures += 1 } }
                        }
                        try await logRows?.write(batch: index)
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - started).benchSeconds
        let cpu = meter.read() - cpuBefore
        if failures > 0 { print("raw client failures: \(failures)") }
        return (seconds, Double(rawRequests) / seconds, cpu)
    }

    /// Two measurements on one engine. Throughput: `deliveries` rows are written first (as expansion would),
    /// then the engine is started and timed until it has sent them all. Latency: rows then arrive at a steady
    /// `latencyRate` for `latencySeconds`, and each one's time from insert to its recorded APNs answer is
    /// measured; a queue kept full on purpose would measure only its own length.
    private func engineRun(
        client: PostgresClient, pool: APNsConnectionPool, meter: CPUMeter, logger: Logger
    ) async throws -> EngineRun {
        let user = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('bench', 'bench@example.com', 'Bench') RETURNING id"
        ).scalar(UUID.self)
        let tokens = DeliveryRowWriter.deviceTokens(devices).map(\.hex)
        try await client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            SELECT \(user), token, 'iOS', 'sandbox' FROM unnest(\(tokens)::text[]) AS token
            """)
        let writer = try DeliveryRowWriter(client: client, user: user, devices: devices)
        var written = 0
        while written < deliveries {
            let count = min(devices, deliveries - written)
            try await writer.write(count)
            written += count
        }
        try await client.execute("VACUUM ANALYZE deliveries")

        let configuration = DeliveryEngineConfiguration(
            workerID: "bench", bundleID: Self.bundleID, keyID: Self.keyID, workers: workers, batchSize: batchSize,
            inFlight: windowBounds)
        let outcomes = OutcomeCounts()
        let engine = DeliveryEngine(
            client: client, apns: OnePool(pool: pool, batched: !taskPerPush), configuration: configuration,
            metrics: DeliveryMetrics(factory: outcomes), logger: logger)
        let cpuBefore = meter.read()
        let started = ContinuousClock.now
        let runner = Task { await engine.run() }
        try await outcomes.waitUntilSent(deliveries)
        let seconds = (ContinuousClock.now - started).benchSeconds
        let cpu = meter.read() - cpuBefore

        let steadyStart = try await client.query("SELECT clock_timestamp()").scalar(Date.self)
        let tick = Duration.milliseconds(100)
        let perTick = max(1, latencyRate / 10)
        let ticks = latencySeconds * 10
        var next = ContinuousClock.now
        for _ in 0..<ticks {
            try await writer.write(perTick)
            next += tick
            try await Task.sleep(until: next)
        }
        try await outcomes.waitUntilSent(deliveries + perTick * ticks)
        engine.shutdownGracefully()
        await runner.value
        let failed = outcomes.failed
        if failed > 0 { print("engine failures: \(failed)") }

        let latency = try await Self.rowToAPNsLatency(client: client, since: steadyStart)
        let logs = try await client.query("SELECT count(*) FROM push_notification_logs").scalar(Int.self)
        return EngineRun(
            seconds: seconds, rate: Double(deliveries) / seconds, cpu: cpu, steadyRate: perTick * 10, p50: latency.p50,
            p99: latency.p99, steadyCount: latency.count, logs: logs)
    }
}

extension DeliveryBench {
    /// A fresh engine drains a fan-out of `fairnessDeliveries` from one app while another app sends one
    /// time-sensitive alert every 100 ms (``FairnessRun``).
    fileprivate func fairnessRun(
        client: PostgresClient, pool: APNsConnectionPool, logger: Logger
    ) async throws -> FairnessRun.Latency {
        let user = try await client.query("SELECT id FROM users WHERE external_id = 'bench'").scalar(UUID.self)
        InstrumentationSystem.bootstrap(SingleSendStages.tracer)
        let outcomes = OutcomeCounts()
        let engine = DeliveryEngine(
            client: client, apns: OnePool(pool: pool, batched: !taskPerPush),
            configuration: DeliveryEngineConfiguration(
                workerID: "bench-fairness", bundleID: Self.bundleID, keyID: Self.keyID, workers: workers,
                batchSize: batchSize, inFlight: windowBounds),
            metrics: DeliveryMetrics(factory: outcomes), logger: logger)
        let run = FairnessRun(
            client: client, fanOut: fairnessDeliveries,
            writer: try DeliveryRowWriter(client: client, user: user, devices: devices))
        return try await run.measure(engine: engine, outcomes: outcomes)
    }
}

extension DeliveryBench {
    /// The median and 99th percentile, in milliseconds, of the time from a notification's insert to its sent
    /// deliveries' log rows (written right after Apple's answers), over notifications made since `since` (of `type`
    /// only, when given), and how many deliveries that is.
    static func rowToAPNsLatency(
        client: PostgresClient, since: Date, type: String? = nil
    ) async throws -> (p50: Double, p99: Double, count: Int) {
        try await client.query(
            """
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
                count(*)
            FROM (
                SELECT extract(epoch FROM l.created_at - n.created_at) * 1000 AS ms
                FROM push_notification_logs AS l JOIN notifications AS n ON n.id = l.notification_id
                WHERE n.created_at >= \(since) AND l.status = 'sent' AND (\(type)::text IS NULL OR n.type = \(type))
            ) AS latencies
            """
        ).decode((Double, Double, Int).self)[0]
    }
}

struct EngineRun {
    var seconds: Double
    var rate: Double
    var cpu: CPUMeter.Reading
    var steadyRate: Int
    var p50: Double
    var p99: Double
    var steadyCount: Int
    var logs: Int
}

/// Writes deliveries as expansion does: one notification fanned out to `count` of the devices, then a wake-up.
struct DeliveryRowWriter {
    let client: PostgresClient
    let user: UUID
    let devices: Int
    let content: PostgresJSON

    /// What every notification the writer makes says.
    static let message = NotificationMessage(
        payload: Payload(
            aps: APS(
                alert: Alert(title: "New Feedback", body: "Feature request: Dark mode support"), badge: 1,
                sound: .default, mutableContent: true),
            custom: [
                "type": .string("new_feedback"), "feedbackId": .string("550e8400-e29b-41d4-a716-446655440000"),
                "actionUrl": .string("feedbackkit://feedback/550e8400-e29b-41d4-a716-446655440000"),
            ]))

    init(client: PostgresClient, user: UUID, devices: Int) throws {
        self.client = client
        self.user = user
        self.devices = devices
        content = try PostgresJSON(encoding: Self.message)
    }

    /// The pushes the engine makes of `count` deliveries written by a writer: one notification per `devices` pushes,
    /// each fanned out to the devices in turn, built from the notification's template as the engine builds them.
    static func pushes(count: Int, devices: Int, bundleID: String) throws -> [PushRequest] {
        let tokens = deviceTokens(devices)
        var requests: [PushRequest] = []
        requests.reserveCapacity(count)
        while requests.count < count {
            let template = try PushTemplate(
                message: message, payload: message.payload(for: .default)!, appearance: PushAppearance(),
                notificationID: UUID(),
                expiresAt: nil)
            for token in tokens.prefix(count - requests.count) {
                requests.append(try template.request(apnsID: APNsID(), deviceToken: token, bundleID: bundleID))
            }
        }
        return requests
    }

    /// The tokens of the bench's `count` devices.
    static func deviceTokens(_ count: Int) -> [DeviceToken] {
        (1...count).map { index in
            let hex = String(index, radix: 16)
            return DeviceToken(hex: "ab" + String(repeating: "0", count: 62 - hex.count) + hex)!
        }
    }

    /// One notification to `count` of the devices, in the bulk lane, as `app`'s deliveries (nil: no app's).
    func write(_ count: Int, app: UUID? = nil) async throws {
        try await client.execute(
            """
            WITH notification AS (
                INSERT INTO notifications (kind, type, content, targets, state, expanded_at)
                VALUES ('direct', 'new_feedback', \(content), '{}'::jsonb, 'expanded', now()) RETURNING id
            )
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, app_id)
            SELECT n.id, \(user), t.id, 'sandbox', \(app)
            FROM notification AS n,
                (SELECT id FROM device_tokens WHERE user_id = \(user) ORDER BY id LIMIT \(count)) AS t
            """)
        try await client.query("SELECT pg_notify(\(HeraldChannel.deliveries), '')")
    }
}

extension Duration {
    var benchSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// The benchmark's one pool in both environments, so the engine runs on the same pool the raw client was timed on.
private struct OnePool: APNsTransport {
    let pool: APNsConnectionPool
    let batched: Bool

    func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
        try await pool.send(request)
    }

    func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
        batched ? pool.send(requests) : PushAnswers.concurrently(requests) { try await pool.send($0) }
    }
}
