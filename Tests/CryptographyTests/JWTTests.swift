import Cryptography
import Foundation
import Testing

@Suite struct JWTTests {
    private struct Claims: Codable, Equatable {
        let sub: String
        let exp: Int
    }

    private let secret = Array("a-long-random-test-secret-made-at-run-time".utf8) + SecureRandom.bytes(count: 16)

    @Test func hs256RoundTrips() throws {
        let claims = Claims(sub: "user-1", exp: 42)
        let token = try JWT.encode(claims, key: .hs256(secret: secret), keyID: "k1")
        let (header, decoded) = try JWT.verify(token, as: Claims.self) { $0.kid == "k1" ? .hs256(secret: secret) : nil }
        #expect(header == JWTHeader(alg: "HS256", kid: "k1"))
        #expect(decoded == claims)
    }

    @Test func tamperedTokenIsRejected() throws {
        let token = try JWT.encode(Claims(sub: "user-1", exp: 42), key: .hs256(secret: secret))
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Data(#"{"exp":42,"sub":"admin"}"#.utf8))
        #expect(throws: JWTError.invalidSignature) {
            try JWT.verify(parts.joined(separator: "."), as: Claims.self) { _ in .hs256(secret: secret) }
        }
        #expect(throws: JWTError.invalidSignature) {
            try JWT.verify(token, as: Claims.self) { _ in .hs256(secret: Array("other".utf8)) }
        }
    }

    @Test func algNoneIsRejected() {
        let header = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"exp":42,"sub":"admin"}"#.utf8))
        for token in ["\(header).\(claims).", "\(header).\(claims)"] {
            #expect(throws: JWTError.self) {
                try JWT.verify(token, as: Claims.self) { _ in .hs256(secret: secret) }
            }
        }
        #expect(throws: JWTError.unsupportedAlgorithm("none")) {
            try JWT.verify("\(header).\(claims).", as: Claims.self) { _ in .hs256(secret: secret) }
        }
    }

    /// An HS256 token "signed" with an ES256 public key's PEM as the HMAC secret must not pass as ES256.
    @Test func algorithmConfusionIsRejected() throws {
        let publicPEM = try P256PrivateKey(pem: TestKeys.p256PrivateKeyPEM()).publicKeyPEM
        let publicKey = try P256PublicKey(pem: publicPEM)
        let forged = try JWT.encode(Claims(sub: "admin", exp: 42), key: .hs256(secret: Array(publicPEM.utf8)))
        #expect(throws: JWTError.algorithmMismatch(expected: .es256, found: "HS256")) {
            try JWT.verify(forged, as: Claims.self) { _ in .es256(publicKey) }
        }
    }

    @Test func es256RoundTripsAndChecksTheKey() throws {
        let key = try P256PrivateKey(pem: TestKeys.p256PrivateKeyPEM())
        let other = try P256PrivateKey(pem: TestKeys.p256PrivateKeyPEM())
        let token = try JWT.encode(Claims(sub: "s", exp: 1), key: .es256(key), keyID: "K")
        let publicKey = try P256PublicKey(pem: key.publicKeyPEM)
        #expect(try JWT.verify(token, as: Claims.self) { _ in .es256(publicKey) }.claims == Claims(sub: "s", exp: 1))
        let otherPublic = try P256PublicKey(pem: other.publicKeyPEM)
        #expect(throws: JWTError.invalidSignature) {
            try JWT.verify(token, as: Claims.self) { _ in .es256(otherPublic) }
        }
        #expect(throws: JWTError.unknownKey(keyID: "K")) { try JWT.verify(token, as: Claims.self) { _ in nil } }
    }

    @Test func malformedTokensAreRejected() {
        for token in ["", "a.b", "a.b.c.d", "!!.e30.", "e30.!!.", "e30.e30.!!"] {
            #expect(throws: JWTError.self) { try JWT.verify(token, as: Claims.self) { _ in .hs256(secret: [1]) } }
        }
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231 test case 2.
        let mac = HMACSHA256.authenticationCode(for: Data("what do ya want for nothing?".utf8), key: Data("Jefe".utf8))
        #expect(mac.hexEncodedString() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            HMACSHA256.isValidAuthenticationCode(
                mac, for: Data("what do ya want for nothing?".utf8), key: Data("Jefe".utf8)))
        #expect(
            !HMACSHA256.isValidAuthenticationCode(
                mac.dropLast(), for: Data("what do ya want for nothing?".utf8), key: Data("Jefe".utf8)))
    }
}
