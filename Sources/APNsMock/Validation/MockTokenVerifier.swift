import Crypto
import Foundation
import Synchronization

/// Checks provider tokens as Apple does: ES256 signature by a known key of the team, `kid`, `iss`,
/// and an `iat` no older than an hour. Each distinct token's signature is verified once and cached.
///
/// Unchecked `Sendable`: the public keys are immutable after init (swift-crypto's key types are not
/// marked `Sendable` in this version); everything mutable sits behind the mutex.
final class MockTokenVerifier: @unchecked Sendable {
    enum Verdict: Equatable {
        case valid
        case missing
        case invalid
        case expired
        case tooManyUpdates
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String?
    }

    private struct Claims: Decodable {
        let iss: String
        let iat: Int64
    }

    private struct State {
        /// Verified token → its `iat`.
        var verified: [String: Int64] = [:]
        /// Per key id: the `iat` of the newest token seen, to spot renewals faster than every 20 minutes.
        var newestIssuedAt: [String: Int64] = [:]
    }

    /// A trusted key and the team (`iss`) its tokens must name.
    struct TeamKey {
        let teamID: String
        let key: P256.Signing.PublicKey
    }

    private let keys: [String: TeamKey]
    private let now: @Sendable () -> Date
    private let limitsUpdates: Bool
    private let state = Mutex(State())

    init(
        keys: [String: TeamKey], limitsUpdates: Bool, now: @escaping @Sendable () -> Date
    ) {
        self.keys = keys
        self.limitsUpdates = limitsUpdates
        self.now = now
    }

    func verify(authorization: String?) -> Verdict {
        guard let authorization, authorization.hasPrefix("bearer ") else { return .missing }
        let token = String(authorization.dropFirst("bearer ".count))
        let current = Int64(now().timeIntervalSince1970)
        if let issuedAt = state.withLock({ $0.verified[token] }) {
            return current - issuedAt > 3600 ? .expired : .valid
        }
        guard let (keyID, issuedAt) = verifySignature(token) else { return .invalid }
        if current - issuedAt > 3600 { return .expired }
        return state.withLock { state in
            if limitsUpdates, let newest = state.newestIssuedAt[keyID], issuedAt > newest, issuedAt - newest < 20 * 60 {
                return .tooManyUpdates
            }
            state.newestIssuedAt[keyID] = max(state.newestIssuedAt[keyID] ?? issuedAt, issuedAt)
            state.verified[token] = issuedAt
            return .valid
        }
    }

    private func verifySignature(_ token: String) -> (keyID: String, issuedAt: Int64)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = base64URLDecode(parts[0]), let claimsData = base64URLDecode(parts[1]),
            let signatureData = base64URLDecode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData), header.alg == "ES256",
            let keyID = header.kid, let trusted = keys[keyID],
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData), claims.iss == trusted.teamID,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return nil }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard trusted.key.isValidSignature(signature, for: signingInput) else { return nil }
        return (keyID, claims.iat)
    }

    private func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
