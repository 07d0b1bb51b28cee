import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldIngress

/// Provider tokens checked as Apple checks them, with a clock the test moves: no socket, no database.
@Suite struct ProviderTokenVerifierTests {
    static let team = "TEAM123456"

    struct Claims: Encodable {
        let iss: String
        let iat: Int64
    }

    let key = TestSigningKey.generate()
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    func held(_ key: TestSigningKey, team: String = Self.team) throws -> IngressCatalog.VerifyingKey {
        IngressCatalog.VerifyingKey(
            teamID: team, keyID: key.keyID, topics: [], publicKey: try P256PublicKey(pem: key.publicKeyPEM))
    }

    func token(_ key: TestSigningKey, team: String = Self.team, issuedAt: Date) throws -> String {
        try JWT.encode(
            Claims(iss: team, iat: Int64(issuedAt.timeIntervalSince1970)),
            key: .es256(P256PrivateKey(pem: key.privateKeyPEM)), keyID: key.keyID)
    }

    @Test func aTokenIsGoodForAnHourAndVerifiedOnce() async throws {
        let verifier = ProviderTokenVerifier(now: { [clock] in clock.now() })
        let held = try held(key)
        let jwt = try token(key, issuedAt: clock.now())
        let lookups = LookupCount()
        let keys: (String) async -> [IngressCatalog.VerifyingKey] = { id in
            lookups.increment()
            return id == held.keyID ? [held] : []
        }
        #expect(await verifier.verify(jwt, keys: keys) == .valid(teamID: Self.team, keyID: key.keyID))
        clock.advance(by: 3599)
        #expect(await verifier.verify(jwt, keys: keys) == .valid(teamID: Self.team, keyID: key.keyID))
        #expect(lookups.count == 1, "a token is verified once, then remembered")
        clock.advance(by: 2)
        #expect(await verifier.verify(jwt, keys: keys) == .expired)
    }

    @Test func tokensHeraldCannotVouchForAreInvalid() async throws {
        let verifier = ProviderTokenVerifier(now: { [clock] in clock.now() })
        let held = try held(key)
        let keys: (String) async -> [IngressCatalog.VerifyingKey] = { $0 == held.keyID ? [held] : [] }
        let now = clock.now()
        let stranger = TestSigningKey.generate()
        let impostor = TestSigningKey.generate(keyID: key.keyID)
        let good = try token(key, issuedAt: now)
        let cases: [(String, String, ProviderTokenVerifier.Verdict)] = [
            ("an unknown key", try token(stranger, issuedAt: now), .invalid),
            ("other material under the key's id", try token(impostor, issuedAt: now), .invalid),
            ("another team", try token(key, team: "OTHERTEAM1", issuedAt: now), .invalid),
            ("two minutes ahead", try token(key, issuedAt: now.addingTimeInterval(120)), .invalid),
            (
                "half a minute ahead", try token(key, issuedAt: now.addingTimeInterval(30)),
                .valid(
                    teamID: Self.team, keyID: key.keyID)
            ),
            ("an hour and a second old", try token(key, issuedAt: now.addingTimeInterval(-3601)), .expired),
            ("a changed signature", String(good.dropLast(2)) + (good.hasSuffix("AA") ? "BB" : "AA"), .invalid),
            ("not a JWT", "bearer", .invalid),
            (
                "an HS256 token",
                try JWT.encode(
                    Claims(iss: Self.team, iat: Int64(now.timeIntervalSince1970)),
                    key: .hs256(secret: Array("a secret of at least thirty-two bytes".utf8)), keyID: key.keyID),
                .invalid
            ),
        ]
        for (name, jwt, verdict) in cases {
            #expect(await verifier.verify(jwt, keys: keys) == verdict, "\(name)")
        }
    }

    @Test func aFinalOutcomeBecomesApplesAnswer() {
        let id = APNsID()
        let timestamp = Date(timeIntervalSince1970: 1_800_000_000.5)
        let sent = IngressRelay.answer(
            RelayOutcome(status: .sent, httpStatus: 200, reason: nil, uniqueID: "u-1", appleTimestamp: nil), apnsID: id)
        #expect(sent.status == 200 && sent.uniqueID == "u-1" && sent.body == nil)
        let gone = IngressRelay.answer(
            RelayOutcome(
                status: .tokenExpired, httpStatus: 410, reason: "Unregistered", uniqueID: nil, appleTimestamp: timestamp
            ),
            apnsID: id)
        #expect(gone.status == 410)
        #expect(
            gone.body.map { String(decoding: $0, as: UTF8.self) }
                == #"{"reason":"Unregistered","timestamp":1800000000500}"#)
        #expect(gone.headers.contains { $0 == ("apns-id", id.description) })
        let abandoned = IngressRelay.answer(
            RelayOutcome(status: .failed, httpStatus: nil, reason: "NoSigningKey", uniqueID: nil, appleTimestamp: nil),
            apnsID: id)
        #expect(abandoned.status == 500 && abandoned.reason == "InternalServerError")
        #expect(abandoned.headers.contains { $0 == ("herald-reason", "NoSigningKey") })
    }
}

/// Counts the key lookups a verifier makes.
final class LookupCount: Sendable {
    private let value = Mutex(0)

    var count: Int { value.withLock { $0 } }

    func increment() { value.withLock { $0 += 1 } }
}
