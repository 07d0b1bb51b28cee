import APNs
import APNsMock
import ArgumentParser
import Cryptography
import Foundation
import HeraldCore
import LocalServices
import Logging
import Postgres

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
    @Option(help: "Most deliveries inserted but not yet sent (keeps the latency meaningful).") var backlog = 5_000
    @Option(help: "APNs connections.") var connections = 2
    @Option(help: "Raw client: pushes awaiting an answer at once.") var inFlight = 2_000
    @Option(help: "Engine claim loops.") var workers = 4
    @Option(help: "Engine batch size.") var batchSize = 500
    @Flag(help: "Run PostgreSQL without fsync (faster, not what production does).") var nonDurable = false

    static let keyID = "BENCHKEY01"
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.herald"

    func run() async throws {
        var logger = Logger(label: "delivery-bench")
        logger.logLevel = .warning
        let cluster: EmbeddedPostgres? =
            ProcessInfo.processInfo.environment["DATABASE_URL"] == nil
            ? try await EmbeddedPostgres.start(options: .init(durable: !nonDurable)) : nil
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? cluster!.url()
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: workers + 6),
            logger: logger)
        try await Migrator(
            client: client, migrations: try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!),
            logger: logger
        ).up()
        let settings = try await client.query(
            "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers')"
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

        let raw = try await rawClientRate(pool: pool)
        print(
            String(format: "raw APNs client: %d pushes in %.2f s = %.0f pushes/s", rawRequests, raw.seconds, raw.rate))

        let engineRun = try await engineRate(client: client, pool: pool, logger: logger)
        print(
            String(
                format:
                    "delivery engine: %d deliveries in %.2f s = %.0f deliveries/s (%.0f%% of the raw client); row-to-APNs latency p50 %.1f ms, p99 %.1f ms; %d log rows",
                deliveries, engineRun.seconds, engineRun.rate, 100 * engineRun.rate / raw.rate, engineRun.p50,
                engineRun.p99,
                engineRun.logs))

        poolTask.cancel()
        await poolTask.value
        try await mock.stop()
        client.shutdown()
        try? FileManager.default.removeItem(atPath: caFile)
        await cluster?.stop()
    }

    /// The raw client: `rawRequests` pushes from `inFlight` concurrent senders, as apns-bench measures.
    private func rawClientRate(pool: APNsConnectionPool) async throws -> (seconds: Double, rate: Double) {
        let token = DeviceToken(hex: String(repeating: "ab", count: 32))!
        let payload = try NotificationContent(
            title: "New Feedback", body: "Feature request: Dark mode support", badge: 1, sound: "default"
        )
        .template(for: PushAppearance(), expiresAt: nil).payloadJSON
        let started = ContinuousClock.now
        let senders = max(1, min(inFlight, rawRequests))
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for sender in 0..<senders {
                let share = rawRequests / senders + (sender < rawRequests % senders ? 1 : 0)
                group.addTask {
                    var failures = 0
                    for _ in 0..<share {
                        let request = try PushRequest(
                            deviceToken: token, bundleID: Self.bundleID, pushType: .alert, payloadJSON: payload)
                        if case .accepted = try await pool.send(request) {} else { failures += 1 }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - started).benchSeconds
        if failures > 0 { print("raw client failures: \(failures)") }
        return (seconds, Double(rawRequests) / seconds)
    }

    /// Inserts `deliveries` rows in notifications of `devices` deliveries each, never more than `backlog`
    /// ahead of the engine, and waits until the engine has sent them all.
    private func engineRate(client: PostgresClient, pool: APNsConnectionPool, logger: Logger) async throws -> (
        seconds: Double, rate: Double, p50: Double, p99: Double, logs: Int
    ) {
        let user = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('bench', 'bench@example.com', 'Bench') RETURNING id"
        ).scalar(UUID.self)
        try await client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            SELECT \(user), 'ab' || lpad(to_hex(i), 62, '0'), 'iOS', 'sandbox' FROM generate_series(1, \(devices)) AS i
            """)
        let content = try PostgresJSON(
            encoding: NotificationContent(
                title: "New Feedback", body: "Feature request: Dark mode support", badge: 1, sound: "default",
                mutableContent: true,
                data: [
                    "type": .string("new_feedback"), "feedbackId": .string("550e8400-e29b-41d4-a716-446655440000"),
                    "actionUrl": .string("feedbackkit://feedback/550e8400-e29b-41d4-a716-446655440000"),
                ]))
        let configuration = DeliveryEngineConfiguration(
            workerID: "bench", bundleID: Self.bundleID, keyID: Self.keyID, workers: workers, batchSize: batchSize)
        let engine = DeliveryEngine(
            client: client, transports: DeliveryTransports(sandbox: pool, production: pool),
            configuration: configuration, logger: logger)
        let runner = Task { await engine.run() }

        let started = ContinuousClock.now
        var inserted = 0
        while inserted < deliveries {
            while inserted - engine.metrics.snapshot().sent > backlog {
                try await Task.sleep(for: .milliseconds(2))
            }
            let count = min(devices, deliveries - inserted)
            try await client.execute(
                """
                WITH notification AS (
                    INSERT INTO notifications (kind, type, content, targets, state, expanded_at)
                    VALUES ('direct', 'new_feedback', \(content), '{}'::jsonb, 'expanded', now()) RETURNING id
                )
                INSERT INTO deliveries (notification_id, user_id, device_token_id, environment)
                SELECT n.id, \(user), t.id, 'sandbox'
                FROM notification AS n, (SELECT id FROM device_tokens ORDER BY id LIMIT \(count)) AS t
                """)
            try await client.query("SELECT pg_notify(\(DeliveryEngine.wakeChannel), '')")
            inserted += count
        }
        while engine.metrics.snapshot().sent < deliveries {
            try await Task.sleep(for: .milliseconds(5))
        }
        let seconds = (ContinuousClock.now - started).benchSeconds
        engine.shutdownGracefully()
        await runner.value
        let failed = engine.metrics.snapshot().failed
        if failed > 0 { print("engine failures: \(failed)") }

        let latency = try await client.query(
            """
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
                count(*)
            FROM (
                SELECT extract(epoch FROM l.created_at - d.created_at) * 1000 AS ms
                FROM push_notification_logs AS l JOIN deliveries AS d ON d.id = l.delivery_id
            ) AS latencies
            """
        ).decode((Double, Double, Int).self)[0]
        return (seconds, Double(deliveries) / seconds, latency.0, latency.1, latency.2)
    }
}

extension Duration {
    var benchSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
