import Cryptography
import Foundation
import HeraldCore
import Testing

/// User tokens: an audience or issuer, once configured, must be named by every token.
@Suite struct UserTokenVerifierTests {
    struct Claims: Encodable {
        var sub = "ada"
        var exp = Int(Date().timeIntervalSince1970) + 300
        var iss: String?
        var aud: [String]?
    }

    struct OneAudience: Encodable {
        var sub = "ada"
        var exp = Int(Date().timeIntervalSince1970) + 300
        var aud: String
    }

    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)

    static func token(_ claims: some Encodable) throws -> String {
        try JWT.encode(claims, key: .hs256(secret: secret))
    }

    let checking = UserTokenVerifier(hmacSecret: secret, publicKey: nil, audience: "herald", issuer: "backend")

    @Test func tokensNamingTheAudienceAndIssuerAreTaken() throws {
        #expect(try checking.verify(Self.token(Claims(iss: "backend", aud: ["mail", "herald"]))).rawValue == "ada")
        let verifier = UserTokenVerifier(hmacSecret: Self.secret, publicKey: nil, audience: "herald")
        #expect(try verifier.verify(Self.token(OneAudience(aud: "herald"))).rawValue == "ada")
    }

    @Test(arguments: [
        Claims(iss: "backend", aud: nil), Claims(iss: "backend", aud: ["mail"]), Claims(iss: nil, aud: ["herald"]),
        Claims(iss: "someone-else", aud: ["herald"]),
    ])
    func tokensMissingTheAudienceOrIssuerAreRefused(claims: Claims) throws {
        let token = try Self.token(claims)
        #expect(throws: UserTokenVerifier.Failure.self) { try checking.verify(token) }
    }

    @Test func withoutAudienceOrIssuerConfiguredNeitherIsRequired() throws {
        let verifier = UserTokenVerifier(hmacSecret: Self.secret, publicKey: nil)
        #expect(try verifier.verify(Self.token(Claims(iss: "anyone", aud: ["any"]))).rawValue == "ada")
        #expect(try verifier.verify(Self.token(Claims())).rawValue == "ada")
    }
}
