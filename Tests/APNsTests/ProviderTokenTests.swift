import APNs
import APNsCore
import APNsMock
import Crypto
import Cryptography
import Foundation
import HeraldTesting
import Logging
import Testing

extension Networked {
    @Suite
    struct ProviderTokenTests {
        private struct Header: Decodable, Equatable {
            let alg: String
            let kid: String
        }

        private struct Claims: Decodable, Equatable {
            let iss: String
            let iat: Int64
        }

        /// The signature Herald makes with OpenSSL verifies with swift-crypto, an independent implementation.
        @Test func es256TokenVerifiesWithSwiftCrypto() throws {
            let key = TestSigningKey.generate()
            let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000.7))
            let source = ProviderTokenSource(
                key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: "TEAM123456", clock: clock,
                logger: Logger(label: "test"))
            let token = try source.currentToken()
            let parts = token.jwt.split(separator: ".")
            #expect(parts.count == 3)
            let header = try JSONDecoder().decode(Header.self, from: try #require(Base64URL.decode(parts[0])))
            let claims = try JSONDecoder().decode(Claims.self, from: try #require(Base64URL.decode(parts[1])))
            #expect(header == Header(alg: "ES256", kid: key.keyID))
            #expect(claims == Claims(iss: "TEAM123456", iat: 1_700_000_000))
            #expect(
                String(decoding: try #require(Base64URL.decode(parts[0])), as: UTF8.self)
                    == #"{"alg":"ES256","kid":"\#(key.keyID)"}"#)
            let signature = try #require(Base64URL.decode(parts[2]))
            #expect(signature.count == 64)
            let publicKey = try P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)
            let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
            #expect(publicKey.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8)))
            #expect(!publicKey.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[0]).utf8)))
        }

        /// swift-crypto's signatures verify with Herald's OpenSSL verifier too.
        @Test func swiftCryptoSignatureVerifiesWithOpenSSL() throws {
            let key = P256.Signing.PrivateKey()
            let message = Data("herald".utf8)
            let signature = try key.signature(for: message).rawRepresentation
            let publicKey = try Cryptography.P256PublicKey(pem: key.publicKey.pemRepresentation)
            #expect(publicKey.isValidES256Signature(signature, for: message))
            #expect(!publicKey.isValidES256Signature(signature, for: Data("other".utf8)))
        }

        @Test func tokenIsRenewedAfterFiftyMinutesAndNotBefore() throws {
            let key = TestSigningKey.generate()
            let clock = ManualClock()
            let source = ProviderTokenSource(
                key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: "T", clock: clock,
                logger: Logger(label: "test"))
            let first = try source.currentToken()
            clock.advance(by: 49 * 60)
            #expect(try source.currentToken() == first)
            clock.advance(by: 61)
            let second = try source.currentToken()
            #expect(second != first)
            #expect(second.issuedAt.timeIntervalSince(first.issuedAt) >= 50 * 60)
        }

        @Test func expiredTokenIsRenewedOnlyWhenOldEnough() throws {
            let key = TestSigningKey.generate()
            let clock = ManualClock()
            let source = ProviderTokenSource(
                key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: "T", clock: clock,
                logger: Logger(label: "test"))
            let young = try source.currentToken()
            clock.advance(by: 5 * 60)
            source.reportExpired(young)
            #expect(try source.currentToken() == young, "a 5-minute-old token means a wrong clock: keep it")
            clock.advance(by: 20 * 60)
            source.reportExpired(young)
            let renewed = try source.currentToken()
            #expect(renewed != young)
            source.reportExpired(young)
            #expect(try source.currentToken() == renewed, "a report about an old token must not renew the new one")
        }

        @Test func renewalAgeIsClampedBetweenTwentyAndSixtyMinutes() {
            #expect(ProviderTokenPolicy(renewalAge: .seconds(60)).renewalAge == .seconds(20 * 60))
            #expect(ProviderTokenPolicy(renewalAge: .seconds(2 * 3600)).renewalAge == .seconds(59 * 60))
            #expect(ProviderTokenPolicy().renewalAge == .seconds(50 * 60))
        }

        /// Two connections share one token; after 51 minutes (injected clock) the next requests carry a new
        /// one, which the mock (on the same clock) accepts.
        @Test func tokenIsSharedAcrossConnectionsAndRenewedOnSchedule() async throws {
            let clock = ManualClock()
            let harness = try await MockHarness.start(now: { clock.now() })
            defer { Task { try await harness.stop() } }
            let tokens = try harness.tokenSource(clock: clock)
            try await harness.withPool(harness.configuration(connections: 2), tokens: tokens) { pool in
                let first = try await ResilienceTests.burst(200, through: pool)
                #expect(ResilienceTests.notAccepted(first).isEmpty)
                clock.advance(by: 51 * 60)
                let second = try await ResilienceTests.burst(200, through: pool)
                #expect(ResilienceTests.notAccepted(second).isEmpty)
            }
            let records = harness.mock.recordedRequests
            #expect(Set(records.map(\.connectionID)).count == 2)
            let firstTokens = Set(records.prefix(200).compactMap { $0.header("authorization") })
            let secondTokens = Set(records.suffix(200).compactMap { $0.header("authorization") })
            #expect(firstTokens.count == 1)
            #expect(secondTokens.count == 1)
            #expect(firstTokens != secondTokens)
            let connectionsUsingFirst = Set(records.prefix(200).map(\.connectionID))
            #expect(connectionsUsingFirst.count == 2, "both connections used the same token")
        }

        @Test func expiredTokenAnswerFromAppleIsMappedAndRenewsTheToken() async throws {
            let clock = ManualClock()
            // The mock's clock runs 2 hours ahead: every token looks expired to it.
            let harness = try await MockHarness.start(now: { clock.now() + 7200 })
            defer { Task { try await harness.stop() } }
            let tokens = try harness.tokenSource(clock: clock)
            let result = try await harness.withPool(harness.configuration(), tokens: tokens) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            #expect(result.rejectionReason == .expiredProviderToken)
            #expect(result.rejectionReason?.consequence == .retryLater)
        }
    }
}

@Suite struct KeyCurveTests {
    @Test func keyOnAnotherCurveIsRefused() {
        let pem = P384.Signing.PrivateKey().pemRepresentation
        #expect(throws: KeyError.wrongCurve("secp384r1")) { try Cryptography.P256PrivateKey(pem: pem) }
    }
}

extension Networked {
    @Suite struct TokenUpdateLimitTests {
        /// A second client with a newer token for the same key, minutes later, is refused as Apple would.
        @Test func newerTokenWithinTwentyMinutesIsRefused() async throws {
            let clock = ManualClock()
            let harness = try await MockHarness.start(now: { clock.now() })
            defer { Task { try await harness.stop() } }
            let first = try await harness.withPool(
                harness.configuration(), tokens: try harness.tokenSource(clock: clock)
            ) {
                try await $0.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            clock.advance(by: 5 * 60)
            let second = try await harness.withPool(
                harness.configuration(), tokens: try harness.tokenSource(clock: clock)
            ) {
                try await $0.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            #expect(first.uniqueID != nil)
            #expect(second.rejectionReason == .tooManyProviderTokenUpdates)
            #expect(second.rejectionReason?.consequence == .pauseSending)
        }
    }
}
