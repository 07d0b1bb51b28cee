import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

@testable import HeraldIngress

/// What the ingress remembers of API keys it looked up.
@Suite(.sharesMachine) struct APIKeyLookupsTests {
    /// A key revoked after it was remembered is looked up once its memory runs out, and from then on its absence is
    /// remembered: no further lookups, which the pacer would make wait (here 5 s each, past a burst of two).
    @Test func aRevokedKeysAbsenceIsRememberedAfterItsOneLookup() async throws {
        let url = try await TestDatabases.shared.heraldDatabase()
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let store = APIKeyStore(client: client)
        let created = try await store.create(name: "relay", scope: .send)
        let lookups = APIKeyLookups(
            store: store, pacer: LookupPacer(perSecond: 0.2, burst: 2), lifetime: .milliseconds(300))

        #expect(try await lookups.key(created.secret, from: "10.0.0.1") != nil)
        _ = try await store.revoke(created.key.id.uuidString)
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await lookups.key(created.secret, from: "10.0.0.1") == nil, "looked up again: revoked")
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<3 { #expect(try await lookups.key(created.secret, from: "10.0.0.1") == nil) }
        #expect(clock.now - start < .seconds(2), "the absence is remembered, not looked up in the pacer's turn")
    }
}
