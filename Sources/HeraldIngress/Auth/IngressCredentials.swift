import APNsCore
import Foundation
import HeraldCore

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
    private let apiKeys: APIKeyLookups

    init(catalog: IngressCatalog, tokens: ProviderTokenVerifier, apiKeys: APIKeyLookups) {
        self.catalog = catalog
        self.tokens = tokens
        self.apiKeys = apiKeys
    }

    /// The identity `authorization` proves, or Apple's reason for refusing it: `MissingProviderToken` without a bearer
    /// token, `InvalidProviderToken` for one Herald cannot verify (or an unknown API key), `ExpiredProviderToken` for
    /// one over an hour old, `Forbidden` for an API key that may not send.
    /// An API key not remembered is looked up in `address`'s turn (``APIKeyLookups``).
    /// - Throws: When the database cannot be read to look up an API key, or the task is cancelled while it waits.
    func identify(_ authorization: String?, from address: String?) async throws -> Verdict {
        guard let authorization, authorization.utf8.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return .refused(.missingProviderToken) }
        let credential = String(authorization.dropFirst(7))
        guard !credential.isEmpty else { return .refused(.missingProviderToken) }
        if credential.hasPrefix(APIKeyStore.keyPrefix) {
            guard let key = try await apiKeys.key(credential, from: address) else {
                return .refused(.invalidProviderToken)
            }
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
        case .apiKey(let key): return key.appScope.admits(app.externalID) ? app : nil
        }
    }
}

extension IngressCredentials.Identity {
    /// The API key's id, for the notification's record; nil for a provider token.
    var apiKeyID: UUID? {
        if case .apiKey(let key) = self { key.id } else { nil }
    }
}
