import Cryptography
import Foundation
import Synchronization

/// Checks provider tokens as Apple does: an ES256 JWT whose `kid` names a key Herald holds, whose `iss` is that key's
/// team and whose `iat` is less than an hour old (and not ahead of the clock by more than a minute). Each distinct
/// token's signature is verified once; the token is then remembered until it expires.
final class ProviderTokenVerifier: Sendable {
    /// What a token is worth.
    enum Verdict: Equatable, Sendable {
        /// Signed by key `keyID` of team `teamID`.
        case valid(teamID: String, keyID: String)
        /// Malformed, not ES256, an unknown key, a bad signature, another team, or issued in the future.
        case invalid
        /// Issued more than an hour ago.
        case expired
    }

    private struct Claims: Decodable {
        let iss: String
        /// Seconds; a fraction some libraries write is dropped.
        let iat: Double
    }

    private struct Verified {
        let teamID: String
        let keyID: String
        let issuedAt: Int64
    }

    /// Apple's limit on a token's age.
    static let lifetime: Int64 = 3600
    /// How far ahead of this clock a token's `iat` may be.
    static let allowedSkew: Int64 = 60
    /// Larger `iat` values are refused before they are made whole numbers (they could not be dates anyway).
    static let largestIssuedAt: Double = 1e12
    /// Tokens remembered at most; a fleet of clients renews its few tokens every 20 to 60 minutes.
    static let rememberedTokens = 10_000

    private let now: @Sendable () -> Date
    private let verified = Mutex<[String: Verified]>([:])

    init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    /// The verdict on `token`.
    /// - Parameter keys: The keys Herald holds with a token's `kid`.
    func verify(_ token: String, keys: (String) async -> [IngressCatalog.VerifyingKey]) async -> Verdict {
        let current = Int64(now().timeIntervalSince1970)
        if let known = verified.withLock({ $0[token] }) {
            return age(known.issuedAt, at: current) ?? .valid(teamID: known.teamID, keyID: known.keyID)
        }
        guard let (key, issuedAt) = await verifySignature(token, keys: keys) else { return .invalid }
        if let refusal = age(issuedAt, at: current) { return refusal }
        verified.withLock { verified in
            if verified.count >= Self.rememberedTokens {
                verified = verified.filter { current - $0.value.issuedAt <= Self.lifetime }
                if verified.count >= Self.rememberedTokens { verified.removeAll() }
            }
            verified[token] = Verified(teamID: key.teamID, keyID: key.keyID, issuedAt: issuedAt)
        }
        return .valid(teamID: key.teamID, keyID: key.keyID)
    }

    /// The refusal of a token issued at `issuedAt`, by its age at `current`; nil while it is valid.
    private func age(_ issuedAt: Int64, at current: Int64) -> Verdict? {
        if current - issuedAt > Self.lifetime { return .expired }
        if issuedAt - current > Self.allowedSkew { return .invalid }
        return nil
    }

    /// The key that signed `token` and its `iat`, or nil when no key Herald holds with its `kid` and team did.
    private func verifySignature(
        _ token: String, keys: (String) async -> [IngressCatalog.VerifyingKey]
    ) async -> (IngressCatalog.VerifyingKey, Int64)? {
        guard let keyID = Self.keyID(of: token) else { return nil }
        for key in await keys(keyID) {
            guard
                let (_, claims) = try? JWT.verify(
                    token, as: Claims.self, key: { _ in .es256(key.publicKey) }),
                claims.iss == key.teamID, claims.iat.isFinite, abs(claims.iat) < Self.largestIssuedAt
            else { continue }
            return (key, Int64(claims.iat.rounded(.down)))
        }
        return nil
    }

    /// The `kid` of `token`'s header, read before any key is chosen.
    private static func keyID(of token: String) -> String? {
        guard let end = token.utf8.firstIndex(of: UInt8(ascii: ".")),
            let json = Base64URL.decode(token[..<end]),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: json)
        else { return nil }
        return header.kid
    }
}
