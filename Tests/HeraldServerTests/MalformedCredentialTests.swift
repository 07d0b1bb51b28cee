import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

/// A bearer value that can be neither an API key nor a JWT is refused by its shape, before any database lookup.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct MalformedCredentialTests {
    /// With the pool shut down, a lookup fails (and the request with it): only a refusal made without one is a 401.
    @Test func malformedValuesAre401WithoutALookup() async throws {
        let harness = try await APIHarness.make()
        let wellFormed = try #require(harness.keys[.admin])
        try await harness.run { api in
            harness.client.shutdown()
            let malformed = [
                "hk_short", String(wellFormed.dropLast()), wellFormed + "A", "hk_" + String(repeating: "+", count: 43),
                String(repeating: "x", count: 150), "a.b", "a..c", "a.b.c.d", "a.b.c=", "a.b!.c",
                String(repeating: "a", count: 8200) + ".b.c",
            ]
            for value in malformed {
                let answer = try await api.call(.get, "/api/v1/devices", headers: harness.bearer(value))
                #expect(answer.status == .unauthorized, "\(value.prefix(20))")
                #expect(answer.error == "unauthorized")
            }
            let lookedUp = try await api.call(.get, "/api/v1/devices", headers: harness.bearer(wellFormed))
            #expect(lookedUp.status != .unauthorized, "a well-formed key needs the (stopped) database")
        }
    }
}

@Suite struct APIKeyShapeTests {
    @Test func onlyThePrefixAnd43Base64URLCharactersAreAKey() throws {
        let key = "hk_" + String(repeating: "Ab0-_", count: 8) + "xyz"
        #expect(APIKeyStore.isWellFormed(key))
        #expect(!APIKeyStore.isWellFormed(key + "z"))
        #expect(!APIKeyStore.isWellFormed("hk_" + String(repeating: "=", count: 43)))
        #expect(!APIKeyStore.isWellFormed("hx_" + String(key.dropFirst(3))))
        #expect(!APIKeyStore.isWellFormed("hk_" + String(repeating: "é", count: 21) + "a"), "43 bytes, not characters")
    }
}
