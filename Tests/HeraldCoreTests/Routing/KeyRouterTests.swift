import APNsCore
import APNsMock
import CoreMetrics
import Foundation
import HeraldTesting
import Logging
import Testing

@testable import HeraldCore

/// The router's sending rules over scripted key clients and a real database of apps and keys, on a test clock.
@Suite struct KeyRouterTests {
    static let team = "TEAMR"
    static let bundleID = "com.example.routed"
    static let defaultKey = SigningKeyRef(teamID: "TEAMA", keyID: "DEFAULT")

    struct Fixture {
        let router: KeyRouter<TestClock>
        let clients: FakeKeyClients
        let clock: TestClock
    }

    /// The app on team `TEAMR` with `keys` (key id → environments), and a router that has read them unless told not to.
    static func fixture(
        keys: [(String, SigningKey.Environments)] = [("FIRST", .both), ("SECOND", .both)], refreshed: Bool = true
    ) async throws -> Fixture {
        let database = try await CoreDatabase.make()
        _ = try await AppStore(client: database.client).put(
            ExternalID("routed")!,
            AppDefinition(name: "Routed", bundleID: bundleID, teamID: team, defaultEnvironment: .sandbox))
        for (keyID, environments) in keys {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID()).p8").path
            try TestSigningKey.generate(keyID: keyID).writePrivateKey(to: path)
            _ = try await SigningKeyStore(client: database.client).add(
                SigningKeyDefinition(teamID: team, keyID: keyID, environments: environments, topics: []),
                keyPath: path)
        }
        let clients = FakeKeyClients()
        let clock = TestClock()
        let router = KeyRouter(
            defaultClient: try clients.client(keyID: defaultKey.keyID, teamID: defaultKey.teamID),
            defaultKey: defaultKey, clients: clients, keyIdleLifetime: .seconds(600), database: database.client,
            masterKey: nil, clock: clock, metrics: NOOPMetricsHandler.instance, logger: Logger(label: "test"))
        if refreshed { try await router.refresh() }
        return Fixture(router: router, clients: clients, clock: clock)
    }

    static func push() throws -> PushRequest {
        try PushRequest(
            deviceToken: MockHarness.deviceToken(), bundleID: bundleID, pushType: .alert,
            payloadJSON: Data(#"{"aps":{"alert":"Hi"}}"#.utf8))
    }

    @Test func beforeTheFirstReadTheDefaultKeySigns() async throws {
        let fixture = try await Self.fixture(refreshed: false)
        defer { fixture.router.stopClients() }
        let result = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(result.isAccepted)
        #expect(fixture.clients.sent("DEFAULT") == 1)
        #expect(fixture.clients.made.isEmpty)
    }

    @Test func aRefusedKeyIsPausedAndTheTeamsNextKeySignsUntilThePauseIsOver() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.router.stopClients() }
        fixture.clients.refuse("FIRST", with: .invalidProviderToken)
        let first = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(first.isAccepted)
        #expect(fixture.clients.sent("FIRST") == 1)
        #expect(fixture.clients.sent("SECOND") == 1)

        _ = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(fixture.clients.sent("FIRST") == 1, "paused")
        #expect(fixture.clients.sent("SECOND") == 2)

        fixture.clock.advance(by: KeyRouter<TestClock>.keyPause)
        fixture.clients.refuse("FIRST", with: nil)
        _ = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(fixture.clients.sent("FIRST") == 2, "tried again once the pause was over")
        #expect(fixture.clients.sent("SECOND") == 2)
    }

    @Test func theLastKeysRefusalReachesTheEngine() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.router.stopClients() }
        fixture.clients.refuse("FIRST", with: .unrelatedKeyIDInToken)
        fixture.clients.refuse("SECOND", with: .badEnvironmentKeyIDInToken)
        let result = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(result.rejectionReason == .badEnvironmentKeyIDInToken)
    }

    @Test func aRefusalOfTheTeamsCredentialsIsNotTriedWithAnotherKey() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.router.stopClients() }
        fixture.clients.refuse("FIRST", with: .forbidden)
        let result = try await fixture.router.send(try Self.push(), environment: .sandbox)
        #expect(result.rejectionReason == .forbidden)
        #expect(fixture.clients.sent("SECOND") == 0)
    }

    @Test func aBatchRefusedByItsKeyGoesOutWithTheNextKey() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.router.stopClients() }
        fixture.clients.refuse("FIRST", with: .invalidProviderToken)
        let pushes = try (0..<4).map { _ in try Self.push() }
        var answered: [Int: PushResult] = [:]
        for await chunk in fixture.router.send(pushes, environment: .sandbox) {
            for answer in chunk { answered[answer.index] = answer.result }
        }
        #expect(answered.keys.sorted() == [0, 1, 2, 3])
        #expect(answered.values.allSatisfy { $0.isAccepted })
        #expect(fixture.clients.sent("FIRST") == 4)
        #expect(fixture.clients.sent("SECOND") == 4)
    }

    @Test func aPushNoKeyMaySignFailsAsNoSigningKey() async throws {
        let fixture = try await Self.fixture(keys: [("SANDBOXONLY", .sandbox)])
        defer { fixture.router.stopClients() }
        let result = try await fixture.router.send(try Self.push(), environment: .production)
        guard case .failed(.noSigningKey) = result else {
            Issue.record("expected noSigningKey, got \(result)")
            return
        }
        #expect(fixture.clients.sent("SANDBOXONLY") == 0)
    }

    @Test func anIdleKeysConnectionsCloseAfterTheIdleLifetime() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.router.stopClients() }
        _ = try await fixture.router.send(try Self.push(), environment: .sandbox)
        try await Self.waitUntil { fixture.clients.running == ["FIRST"] }
        fixture.clock.advance(by: .seconds(599))
        fixture.router.closeUnneededClients()
        #expect(fixture.clients.running == ["FIRST"], "not idle long enough")
        fixture.clock.advance(by: .seconds(1))
        fixture.router.closeUnneededClients()
        try await Self.waitUntil { fixture.clients.running.isEmpty }
    }

    /// Polls `condition` for up to 10 s: the client's connections run in a task of their own.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
