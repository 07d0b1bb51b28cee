public import APNs
public import APNsCore
public import APNsMock
import Cryptography
public import Foundation
public import HeraldCore
import Logging
import MetricsTestKit
public import Postgres
import Testing

/// A fresh migrated database, a sandbox and a production `apns-mock` over TLS, and Herald's APNs pools
/// pointed at them: everything a delivery-engine test needs, started at run time.
public struct EngineHarness: Sendable {
    public static let teamID = MockHarness.teamID
    public static let bundleID = MockHarness.bundleID

    public let client: PostgresClient
    public let databaseURL: String
    public let key: TestSigningKey
    public let sandbox: APNsMockServer
    public let production: APNsMockServer
    public let caFiles: [String]
    /// Herald's APNs client, its sandbox pointed at ``sandbox`` and its production at ``production``.
    public let apns: APNsClient
    private let apnsTask: Task<Void, Never>

    /// - Parameters:
    ///   - databaseURL: A migrated database to use instead of a fresh one from ``TestDatabases``.
    ///   - trustedKeys: More signing keys of the team the mocks accept, beside the harness's own.
    ///   - bundleIDs: More bundle ids the mocks accept, beside ``bundleID``.
    ///   - otherTeams: Keys of other teams the mocks accept, by team id.
    public static func start(
        connections: Int = 1, recordsRequests: Bool = true, databaseURL: String? = nil,
        trustedKeys: [TestSigningKey] = [], bundleIDs: Set<String> = [], otherTeams: [String: [TestSigningKey]] = [:],
        tokenKinds: [String: String] = [:]
    ) async throws -> EngineHarness {
        let url: String
        if let databaseURL { url = databaseURL } else { url = try await TestDatabases.shared.heraldDatabase() }
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: 12),
            logger: Logger(label: "test.db"))
        let key = TestSigningKey.generate()
        var mocks: [APNsMockServer] = []
        var caFiles: [String] = []
        var configurations: [APNsClientConfiguration] = []
        let tokens = try ProviderTokenSource(
            key: P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: teamID,
            logger: Logger(label: "test.tokens"))
        for _ in 0..<2 {
            var mockConfiguration = APNsMockConfiguration(
                teamID: teamID,
                keys: Dictionary(uniqueKeysWithValues: ([key] + trustedKeys).map { ($0.keyID, $0.publicKeyPEM) }),
                bundleIDs: bundleIDs.union([bundleID]), recordsRequests: recordsRequests)
            mockConfiguration.tokenKinds = tokenKinds
            mockConfiguration.otherTeams = otherTeams.mapValues { keys in
                Dictionary(uniqueKeysWithValues: keys.map { ($0.keyID, $0.publicKeyPEM) })
            }
            let mock = try APNsMockServer(configuration: mockConfiguration)
            try await mock.start()
            let caFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "herald-engine-ca-\(UUID()).pem"
            ).path
            try mock.certificateAuthority.writeCACertificate(to: caFile)
            configurations.append(
                APNsClientConfiguration(
                    endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), connectionCount: connections,
                    requestTimeout: TestTimeouts.apnsRequest, connectTimeout: TestTimeouts.apnsConnect,
                    tls: TLSClientConfiguration(additionalCAFile: caFile)))
            mocks.append(mock)
            caFiles.append(caFile)
        }
        let apns = try APNsClient(
            tokens: tokens, sandbox: configurations[0], production: configurations[1],
            logger: Logger(label: "test.apns"))
        return EngineHarness(
            client: client, databaseURL: url, key: key, sandbox: mocks[0], production: mocks[1], caFiles: caFiles,
            apns: apns, apnsTask: Task { await apns.run() })
    }

    /// An engine configuration that retries fast, so tests do not wait for production backoffs.
    public static func configuration(workerID: String = "test-\(UUID().uuidString.prefix(8))")
        -> DeliveryEngineConfiguration
    {
        DeliveryEngineConfiguration(
            workerID: workerID, bundleID: bundleID, keyID: "TESTKEY", workers: 2, batchSize: 200,
            lease: .seconds(30), pollInterval: .milliseconds(100), rescueInterval: .milliseconds(300),
            depthInterval: .seconds(1), shutdownGracePeriod: .seconds(5),
            policy: DeliveryPolicy(
                maximumAttempts: 5, initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(200)))
    }

    public func makeEngine(
        _ configuration: DeliveryEngineConfiguration = EngineHarness.configuration(), client: PostgresClient? = nil,
        webhook: (any DeliveryEventSink)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) -> DeliveryEngine {
        DeliveryEngine(
            client: client ?? self.client, apns: apns, configuration: configuration,
            metrics: DeliveryMetrics(factory: TestMetrics()), webhook: webhook, now: now,
            logger: Logger(label: "test.engine"))
    }

    /// Runs `engine` until `done` holds (checked every 100 ms) or `timeout` passes, then shuts it down.
    /// - Returns: Whether `done` held.
    @discardableResult
    public func run(
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

    /// A fresh path for a `.p8` file; the caller removes it.
    public static func keyFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-key-\(UUID()).p8").path
    }

    /// The settings a built `herald` needs to deliver through this harness's database and mocks. Writes the
    /// signing key to `keyFile`.
    public func heraldEnvironment(keyFile: String) throws -> [String: String] {
        try key.writePrivateKey(to: keyFile)
        return [
            "DATABASE_URL": databaseURL, "APNS_KEY_ID": key.keyID, "APNS_TEAM_ID": Self.teamID,
            "APNS_KEY_PATH": keyFile, "APNS_BUNDLE_ID": Self.bundleID,
            "HERALD_APNS_SANDBOX_URL": "https://127.0.0.1:\(sandbox.port)",
            "HERALD_APNS_PRODUCTION_URL": "https://127.0.0.1:\(production.port)",
            "HERALD_APNS_BROADCAST_SANDBOX_URL": "https://127.0.0.1:\(sandbox.port)",
            "HERALD_APNS_BROADCAST_PRODUCTION_URL": "https://127.0.0.1:\(production.port)",
            "HERALD_APNS_CHANNELS_SANDBOX_URL": "https://127.0.0.1:\(sandbox.port)",
            "HERALD_APNS_CHANNELS_PRODUCTION_URL": "https://127.0.0.1:\(production.port)",
            "HERALD_APNS_CA_FILE": caFiles[0],
        ]
    }

    public func stop() async throws {
        apnsTask.cancel()
        await apnsTask.value
        try await sandbox.stop()
        try await production.stop()
        client.shutdown()
        for file in caFiles { try? FileManager.default.removeItem(atPath: file) }
    }

    // MARK: Rows

    public func insertUser(
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

    public func insertDevice(
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

    public func insertNotification(
        _ message: NotificationMessage, type: String = "new_feedback", expiresAt: Date? = nil
    ) async throws -> UUID {
        let json = try PostgresJSON(encoding: message)
        return try await client.query(
            """
            INSERT INTO notifications (kind, type, content, targets, state, expanded_at, send_at, expires_at)
            VALUES ('direct', \(type), \(json), '{}'::jsonb, 'expanded', now(), now(), \(expiresAt)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    public func insertDelivery(
        notification: UUID, user: UUID, device: UUID, environment: APNsEnvironment = .sandbox,
        lane: DeliveryLane = .bulk
    ) async throws -> UUID {
        try await client.query(
            """
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, lane)
            VALUES (\(notification), \(user), \(device), \(environment.rawValue), \(lane.rawValue)) RETURNING id
            """
        ).scalar(UUID.self)
    }

    /// One user with `count` devices (tokens `prefix` + index) and one delivery each for a new notification.
    public func insertFanOut(
        count: Int, tokenPrefix: String, environment: APNsEnvironment = .sandbox, topic: String? = nil
    ) async throws -> UUID {
        let user = try await insertUser()
        let notification = try await insertNotification(.alert(title: "Herald", body: "Fan-out"))
        try await client.execute(
            """
            WITH devices AS (
                INSERT INTO device_tokens (user_id, token, platform, environment, topic)
                SELECT \(user), \(tokenPrefix) || lpad(to_hex(i), 64 - length(\(tokenPrefix)), '0'), 'iOS',
                    \(environment.rawValue), \(topic)
                FROM generate_series(1, \(count)) AS i
                RETURNING id
            )
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment)
            SELECT \(notification), \(user), id, \(environment.rawValue) FROM devices
            """)
        return notification
    }

    /// How many of `notification`'s deliveries are in each state, as `GET /api/v1/notifications/{id}` counts them:
    /// open ones in the outbox, finished ones by their final log row.
    public func states(of notification: UUID) async throws -> [String: Int] {
        try await NotificationStore(client: client).status(notification, in: .everyApp)?.deliveries ?? [:]
    }

    /// Delivery `id` as its outbox row has it while open, or as its newest final log row does once finished.
    public func delivery(_ id: UUID) async throws -> (
        state: String, attempts: Int, environment: String, reason: String?
    ) {
        let row = try await client.query(
            """
            SELECT state, attempts, environment, last_reason FROM (
                SELECT 0 AS rank, state, attempts, environment, last_reason, now() AS at
                FROM deliveries WHERE id = \(id) AND finished_at IS NULL
                UNION ALL
                SELECT 1, status, attempt, environment, apns_reason, created_at FROM push_notification_logs
                WHERE delivery_id = \(id) AND status <> 'retrying'
            ) AS d ORDER BY rank, at DESC LIMIT 1
            """
        ).decode((String, Int, String, String?).self)
        let found = try #require(row.first, "delivery \(id) is neither open nor logged as finished")
        return (found.0, found.1, found.2, found.3)
    }

    public func device(_ id: UUID) async throws -> (active: Bool, environment: String, reason: String?, lastUsed: Date?)
    {
        let row = try await client.query(
            "SELECT is_active, environment, deactivation_reason, last_used_at FROM device_tokens WHERE id = \(id)"
        ).decode((Bool, String, String?, Date?).self)[0]
        return (row.0, row.1, row.2, row.3)
    }

    public func logStatuses(of delivery: UUID) async throws -> [String] {
        try await client.query(
            "SELECT status FROM push_notification_logs WHERE delivery_id = \(delivery) ORDER BY attempt, created_at"
        ).decode(String.self)
    }

    /// A valid 32-byte token starting with `prefix`.
    public static func token(_ prefix: String, _ index: Int = 0) -> String {
        let suffix = String(format: "%08x", index)
        return prefix + String(repeating: "0", count: 64 - prefix.count - suffix.count) + suffix
    }
}
