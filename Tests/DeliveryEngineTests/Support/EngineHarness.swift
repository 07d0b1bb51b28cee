import APNs
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import LocalServices
import Logging
import Postgres

/// A fresh migrated database, a sandbox and a production `apns-mock` over TLS, and Herald's APNs pools
/// pointed at them: everything a delivery-engine test needs, started at run time.
struct EngineHarness {
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.herald"

    let client: PostgresClient
    let databaseURL: String
    let key: TestSigningKey
    let sandbox: APNsMockServer
    let production: APNsMockServer
    let caFiles: [String]
    let sandboxPool: APNsConnectionPool
    let productionPool: APNsConnectionPool
    private let poolTasks: [Task<Void, Never>]

    static func start(connections: Int = 1, recordsRequests: Bool = true) async throws -> EngineHarness {
        let migrations = try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!)
        let url = try await TestDatabases.shared.migratedDatabase(migrations)
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: 12),
            logger: Logger(label: "test.db"))
        let key = TestSigningKey.generate()
        var mocks: [APNsMockServer] = []
        var caFiles: [String] = []
        var pools: [APNsConnectionPool] = []
        let tokens = try ProviderTokenSource(
            key: P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: teamID,
            logger: Logger(label: "test.tokens"))
        for _ in 0..<2 {
            let mock = try APNsMockServer(
                configuration: APNsMockConfiguration(
                    teamID: teamID, keys: [key.keyID: key.publicKeyPEM], bundleIDs: [bundleID],
                    recordsRequests: recordsRequests))
            try await mock.start()
            let caFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "herald-engine-ca-\(UUID()).pem"
            ).path
            try mock.certificateAuthority.writeCACertificate(to: caFile)
            let pool = try APNsConnectionPool(
                configuration: APNsClientConfiguration(
                    endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), connectionCount: connections,
                    requestTimeout: .seconds(20), connectTimeout: .seconds(15),
                    tls: TLSClientConfiguration(additionalCAFile: caFile)),
                tokens: tokens, logger: Logger(label: "test.apns"))
            mocks.append(mock)
            caFiles.append(caFile)
            pools.append(pool)
        }
        let poolTasks = pools.map { pool in Task { await pool.run() } }
        return EngineHarness(
            client: client, databaseURL: url, key: key, sandbox: mocks[0], production: mocks[1], caFiles: caFiles,
            sandboxPool: pools[0], productionPool: pools[1], poolTasks: poolTasks)
    }

    var transports: DeliveryTransports { DeliveryTransports(sandbox: sandboxPool, production: productionPool) }

    /// An engine configuration that retries fast, so tests do not wait for production backoffs.
    static func configuration(workerID: String = "test-\(UUID().uuidString.prefix(8))") -> DeliveryEngineConfiguration {
        DeliveryEngineConfiguration(
            workerID: workerID, bundleID: bundleID, keyID: "TESTKEY", workers: 2, batchSize: 200,
            lease: .seconds(30), pollInterval: .milliseconds(100), rescueInterval: .milliseconds(300),
            depthInterval: .seconds(1), shutdownGracePeriod: .seconds(5),
            policy: DeliveryPolicy(
                maximumAttempts: 5, initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(200)))
    }

    func makeEngine(
        _ configuration: DeliveryEngineConfiguration = EngineHarness.configuration(), client: PostgresClient? = nil,
        webhook: DeliveryWebhook? = nil
    ) -> DeliveryEngine {
        DeliveryEngine(
            client: client ?? self.client, transports: transports, configuration: configuration, webhook: webhook,
            logger: Logger(label: "test.engine"))
    }

    /// Runs `engine` until `done` holds (checked every 100 ms) or `timeout` passes, then shuts it down.
    /// - Returns: Whether `done` held.
    @discardableResult
    func run(
        _ engine: DeliveryEngine, timeout: Duration = .seconds(30), until done: @Sendable () async throws -> Bool
    ) async throws -> Bool {
        let runner = Task { await engine.run() }
        let deadline = ContinuousClock.now + timeout
        var satisfied = false
        while ContinuousClock.now < deadline {
            if try await done() {
                satisfied = true
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        engine.shutdownGracefully()
        await runner.value
        return satisfied
    }

    func stop() async throws {
        for task in poolTasks { task.cancel() }
        for task in poolTasks { await task.value }
        try await sandbox.stop()
        try await production.stop()
        client.shutdown()
        for file in caFiles { try? FileManager.default.removeItem(atPath: file) }
    }

    // MARK: Rows

    func insertUser(
        _ externalID: String = "user-\(UUID().uuidString.prefix(8))", sound: Bool = true, badge: Bool = true
    )
        async throws -> UUID
    {
        try await client.query(
            """
            INSERT INTO users (external_id, email, name, push_sound_enabled, push_badge_enabled)
            VALUES (\(externalID), \(externalID + "@example.com"), 'Test User', \(sound), \(badge)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    func insertDevice(
        user: UUID, token: String, environment: APNsEnvironment = .sandbox, registeredAt: Date = Date(),
        topic: String? = nil
    ) async throws -> UUID {
        try await client.query(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment, registered_at, topic)
            VALUES (\(user), \(token), 'iOS', \(environment.rawValue), \(registeredAt), \(topic)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    func insertNotification(
        _ content: NotificationContent, type: String = "new_feedback", expiresAt: Date? = nil
    ) async throws -> UUID {
        let json = try PostgresJSON(encoding: content)
        return try await client.query(
            """
            INSERT INTO notifications (kind, type, content, targets, state, expanded_at, send_at, expires_at)
            VALUES ('direct', \(type), \(json), '{}'::jsonb, 'expanded', now(), now(), \(expiresAt)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    func insertDelivery(notification: UUID, user: UUID, device: UUID, environment: APNsEnvironment = .sandbox)
        async throws -> UUID
    {
        try await client.query(
            """
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment)
            VALUES (\(notification), \(user), \(device), \(environment.rawValue)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    /// One user with `count` devices (tokens `prefix` + index) and one delivery each for a new notification.
    func insertFanOut(count: Int, tokenPrefix: String, environment: APNsEnvironment = .sandbox) async throws -> UUID {
        let user = try await insertUser()
        let notification = try await insertNotification(NotificationContent(title: "Herald", body: "Fan-out"))
        try await client.execute(
            """
            WITH devices AS (
                INSERT INTO device_tokens (user_id, token, platform, environment)
                SELECT \(user), \(tokenPrefix) || lpad(to_hex(i), 64 - length(\(tokenPrefix)), '0'), 'iOS',
                    \(environment.rawValue)
                FROM generate_series(1, \(count)) AS i
                RETURNING id
            )
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment)
            SELECT \(notification), \(user), id, \(environment.rawValue) FROM devices
            """)
        return notification
    }

    func states(of notification: UUID) async throws -> [String: Int] {
        let rows = try await client.query(
            "SELECT state, count(*) FROM deliveries WHERE notification_id = \(notification) GROUP BY state"
        ).decode((String, Int).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    }

    func delivery(_ id: UUID) async throws -> (state: String, attempts: Int, environment: String, reason: String?) {
        let row = try await client.query(
            "SELECT state, attempts, environment, last_reason FROM deliveries WHERE id = \(id)"
        ).decode((String, Int, String, String?).self)[0]
        return (row.0, row.1, row.2, row.3)
    }

    func device(_ id: UUID) async throws -> (active: Bool, environment: String, reason: String?, lastUsed: Date?) {
        let row = try await client.query(
            "SELECT is_active, environment, deactivation_reason, last_used_at FROM device_tokens WHERE id = \(id)"
        ).decode((Bool, String, String?, Date?).self)[0]
        return (row.0, row.1, row.2, row.3)
    }

    func logStatuses(of delivery: UUID) async throws -> [String] {
        try await client.query(
            "SELECT status FROM push_notification_logs WHERE delivery_id = \(delivery) ORDER BY attempt, created_at"
        ).decode(String.self)
    }

    /// A valid 32-byte token starting with `prefix`.
    static func token(_ prefix: String, _ index: Int = 0) -> String {
        let suffix = String(format: "%08x", index)
        return prefix + String(repeating: "0", count: 64 - prefix.count - suffix.count) + suffix
    }
}
