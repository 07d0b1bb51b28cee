import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Processes of one fleet, and restarts of one process, share a key's provider token through PostgreSQL.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct SharedProviderTokenTests {
    struct Process {
        let source: ProviderTokenSource
        let coordinator: ProviderTokenCoordinator
    }

    /// A "process": its own token source (as each `herald` process has) and coordinator, on the shared database.
    static func process(_ key: TestSigningKey, client: PostgresClient, clock: ManualClock) throws -> Process {
        let source = try ProviderTokenSource(
            key: P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: MockHarness.teamID, clock: clock,
            logger: Logger(label: "test"))
        let coordinator = ProviderTokenCoordinator(
            store: ProviderTokenStore(client: client), source: source, now: { clock.now() },
            logger: Logger(label: "test"))
        return Process(source: source, coordinator: coordinator)
    }

    /// A client on a new migrated database: the store the processes of one test share.
    static func database() async throws -> PostgresClient {
        PostgresClient(
            configuration: try PostgresConfiguration(try await TestDatabases.shared.heraldDatabase()),
            logger: Logger(label: "test"))
    }

    static func generations(_ client: PostgresClient, _ key: TestSigningKey) async throws -> Int {
        try await client.query("SELECT count(*) FROM apns_provider_tokens WHERE key_id = \(key.keyID)").scalar(Int.self)
    }

    @Test func processesAndRestartsUseTheFirstStoredToken() async throws {
        let client = try await Self.database()
        defer { client.shutdown() }
        let key = TestSigningKey.generate()
        let clock = ManualClock()
        let first = try Self.process(key, client: client, clock: clock)
        let second = try Self.process(key, client: client, clock: clock)
        // Both start at once: one stores its token, both use that one.
        async let a: Void = first.coordinator.synchronize()
        async let b: Void = second.coordinator.synchronize()
        _ = try await (a, b)
        let token = try first.source.currentToken().jwt
        #expect(try second.source.currentToken().jwt == token)
        #expect(try await Self.generations(client, key) == 1)

        // A restart 10 minutes later (a new process, a new source) reuses it instead of signing its own.
        clock.advance(by: 600)
        let restarted = try Self.process(key, client: client, clock: clock)
        try await restarted.coordinator.synchronize()
        #expect(try restarted.source.currentToken().jwt == token)
        #expect(try await Self.generations(client, key) == 1)
    }

    @Test func exactlyOneRenewalPerGenerationAcrossTheFleet() async throws {
        let client = try await Self.database()
        defer { client.shutdown() }
        let key = TestSigningKey.generate()
        let clock = ManualClock()
        let fleet = try (0..<4).map { _ in try Self.process(key, client: client, clock: clock) }
        try await fleet[0].coordinator.synchronize()
        let original = try fleet[0].source.currentToken().jwt

        clock.advance(by: 51 * 60)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for process in fleet { group.addTask { try await process.coordinator.synchronize() } }
            try await group.waitForAll()
        }
        let renewed = try Set(fleet.map { try $0.source.currentToken().jwt })
        #expect(renewed.count == 1)
        #expect(renewed.first != original)
        let newest = try await ProviderTokenStore(client: client).newest(teamID: MockHarness.teamID, keyID: key.keyID)
        #expect(newest?.generation == 2)
    }

    @Test func anExpiryRenewsOnlyATokenOldEnoughAndTooManyUpdatesRenewsNothing() async throws {
        let client = try await Self.database()
        defer { client.shutdown() }
        let key = TestSigningKey.generate()
        let clock = ManualClock()
        let process = try Self.process(key, client: client, clock: clock)
        try await process.coordinator.synchronize()

        clock.advance(by: 5 * 60)
        try await process.coordinator.synchronize(reason: .expired)
        try await process.coordinator.synchronize(reason: .tooManyUpdates)
        #expect(try await Self.generations(client, key) == 1, "a 5-minute-old token is not renewed: clock skew")

        clock.advance(by: 20 * 60)
        try await process.coordinator.synchronize(reason: .expired)
        #expect(try await Self.generations(client, key) == 2)
    }
}

extension Networked {
    /// Against a mock that applies Apple's strict reading (one token per key, renewed at most every 20 minutes):
    /// a second process started later sends with the fleet's token and is never refused.
    @Suite struct SharedProviderTokenDeliveryTests {
        static func isAccepted(_ result: PushResult) -> Bool {
            if case .accepted = result { return true }
            return false
        }

        @Test func aProcessStartedLaterIsNotLockedOut() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let client = try await SharedProviderTokenTests.database()
            defer { client.shutdown() }
            let clock = ManualClock()
            let later = ManualClock(clock.now().addingTimeInterval(120))

            func send(_ source: ProviderTokenSource, index: Int) async throws -> PushResult {
                try await harness.withPool(harness.configuration(), tokens: source) { pool in
                    try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: index)))
                }
            }

            // Alone, a process started two minutes later signs its own token, which the mock refuses.
            let alone = try harness.tokenSource(clock: later)
            let first = try SharedProviderTokenTests.process(harness.key, client: client, clock: clock)
            try await first.coordinator.synchronize()
            #expect(Self.isAccepted(try await send(first.source, index: 1)))
            let refused = try await send(alone, index: 2)
            guard case .rejected(let rejection) = refused else {
                Issue.record("expected TooManyProviderTokenUpdates, got \(refused)")
                return
            }
            #expect(rejection.reason == .tooManyProviderTokenUpdates)

            // Sharing through the database, the same late process uses the fleet's token.
            let second = try SharedProviderTokenTests.process(harness.key, client: client, clock: later)
            try await second.coordinator.synchronize()
            #expect(Self.isAccepted(try await send(second.source, index: 3)))
        }
    }
}
