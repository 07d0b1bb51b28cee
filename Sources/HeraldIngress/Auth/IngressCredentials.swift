import APNsCore
import Foundation
import HeraldCore
import Synchronization

/// Who may push through the ingress, and to which apps: a provider token signed by a key Herald holds, for the apps
/// of the key's team it may sign for, or an API key with send scope, for its app (or every app).
final class IngressCredentials: Sendable {
    /// Whom a request's `authorization` header names.
    enum Identity: Sendable {
        case signingKey(IngressCatalog.VerifyingKey)
        case apiKey(APIKey)
    }

    /// What a request's `authorization` header proves.
    enum Verdict: Sendable {
        case identified(Identity)
        /// Apple's reason for refusing it.
        case refused(APNsReason)
    }

    private let catalog: IngressCatalog
    private let tokens: ProviderTokenVerifier
    private let apiKeys: APIKeyStore
    private let apiKeyLifetime: Duration
    /// Paces the lookups of API keys not remembered, per client address.
    private let lookups: LookupPacer
    /// API key lookups by secret, reused for ``apiKeyLifetime`` (misses too, so a wrong key costs no lookup per push).
    private let knownAPIKeys = Mutex<[String: (key: APIKey?, until: ContinuousClock.Instant)]>([:])
    /// API keys remembered at most.
    private static let rememberedAPIKeys = 1000

    init(
        catalog: IngressCatalog, tokens: ProviderTokenVerifier, apiKeys: APIKeyStore, apiKeyLifetime: Duration,
        lookups: LookupPacer
    ) {
        self.catalog = catalog
        self.tokens = tokens
        self.apiKeys = apiKeys
        self.apiKeyLifetime = apiKeyLifetime
        self.lookups = lookups
    }

    /// The identity `authorization` proves, or Apple's reason for refusing it: `MissingProviderToken` without a bearer
    /// token, `InvalidProviderToken` for one Herald cannot verify (or an unknown API key), `ExpiredProviderToken` for
    /// one over an hour old, `Forbidden` for an API key that may not send.
    /// An API key not remembered is looked up in `address`'s turn (``LookupPacer``).
    /// - Throws: When the database cannot be read to look up an API key, or the task is cancelled while it waits.
    func identify(_ authorization: String?, from address: String?) async throws -> Verdict {
        guard let authorization, authorization.utf8.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return .refused(.missingProviderToken) }
        let credential = String(authorization.dropFirst(7))
        guard !credential.isEmpty else { return .refused(.missingProviderToken) }
        if credential.hasPrefix(APIKeyStore.keyPrefix) {
            guard let key = try await apiKey(credential, from: address) else { return .refused(.invalidProviderToken) }
            guard key.scope.grants(.send) else { return .refused(.forbidden) }
            return .identified(.apiKey(key))
        }
        switch await tokens.verify(credential, keys: { await catalog.keys(id: $0) }) {
        case .valid(let teamID, let keyID):
            guard let key = await catalog.keys(id: keyID).first(where: { $0.teamID == teamID }) else {
                // Verified earlier, and retired since.
                return .refused(.invalidProviderToken)
            }
            return .identified(.signingKey(key))
        case .invalid: return .refused(.invalidProviderToken)
        case .expired: return .refused(.expiredProviderToken)
        }
    }

    /// The app of `bundleID` when `identity` may push to it; else nil, which Apple answers `TopicDisallowed`.
    func app(bundleID: String, for identity: Identity) async -> App? {
        guard let app = await catalog.app(bundleID: bundleID) else { return nil }
        switch identity {
        case .signingKey(let key): return key.signs(for: app) ? app : nil
        case .apiKey(let key): return key.appID == nil || key.appID == app.externalID ? app : nil
        }
    }

    /// The key of `secret`, from a lookup less than ``apiKeyLifetime`` old or a new one in `address`'s turn.
    private func apiKey(_ secret: String, from address: String?) async throws -> APIKey? {
        if let known = knownAPIKeys.withLock({ $0[secret] }), known.until > .now { return known.key }
        try await lookups.waitForTurn(of: address ?? "")
        let key = try await apiKeys.authenticate(secret)
        let now = ContinuousClock.now
        knownAPIKeys.withLock { known in
            if known.count >= Self.rememberedAPIKeys { known = known.filter { $0.value.until > now } }
            if known.count >= Self.rememberedAPIKeys { known.removeAll() }
            known[secret] = (key, now + apiKeyLifetime)
        }
        return key
    }
}

extension IngressCredentials.Identity {
    /// The API key's id, for the notification's record; nil for a provider token.
    var apiKeyID: UUID? {
        if case .apiKey(let key) = self { key.id } else { nil }
    }
}
