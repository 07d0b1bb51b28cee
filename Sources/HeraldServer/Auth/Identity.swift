import Foundation
import HeraldCore

/// Who is calling: a backend's API key (perhaps acting for one of its users) or a user's own token.
enum Identity: Sendable {
    case apiKey(APIKey, actingFor: ExternalID?)
    case user(ExternalID)
}

extension HeraldRequestContext {
    /// The caller's API key, if its scope grants `needed` (see ``APIKeyScope/grants(_:)``).
    /// - Throws: 401 without credentials, 403 for user tokens and keys of a lesser scope.
    func requireAPIKey(_ needed: APIKeyScope) throws(APIError) -> APIKey {
        switch identity {
        case nil: throw .unauthorized("send Authorization: Bearer <API key>")
        case .user: throw .forbidden("this route needs an API key")
        case .apiKey(let key, _):
            guard key.scope.grants(needed) else {
                throw .forbidden(
                    "an API key of scope \(key.scope.rawValue) may not call this route; "
                        + "it needs scope \(needed.rawValue)")
            }
            return key
        }
    }

    /// The user a seed §6 route acts for: the token's subject, or the `X-Herald-User` of an admin API key.
    /// - Throws: 401 without credentials, 403 for keys that may not act for users, 422 without `X-Herald-User`.
    func requireUser() throws(APIError) -> ExternalID {
        switch identity {
        case nil: throw .unauthorized("send Authorization: Bearer <user token or API key>")
        case .user(let user): return user
        case .apiKey(let key, let actingFor):
            guard key.scope == .admin else {
                throw .forbidden("only admin API keys may act for a user")
            }
            guard let actingFor else {
                throw .validation("API keys name the user they act for in this header", field: "X-Herald-User")
            }
            return actingFor
        }
    }
}

extension HeraldRequestContext {
    /// The apps the caller sees and sends for: an app's API key its own; user tokens and other keys every app.
    var appScope: AppScope {
        if case .apiKey(let key, _) = identity { key.appScope } else { .everyApp }
    }

    /// An admin API key without an app: what changes shared by every app (the user directory, apps, signing keys)
    /// need.
    /// - Throws: as ``requireAPIKey(_:)``, and 403 for an app's key.
    func requireAdminOfEveryApp() throws(APIError) -> APIKey {
        let key = try requireAPIKey(.admin)
        if let app = key.appID { throw .sharedByEveryApp(keyOf: app) }
        return key
    }

    /// The user whose own data, shared by every app, a route reads or changes (personal settings, quiet hours,
    /// project preferences and mutes): as ``requireUser()``, but never for an app's key, whose backend speaks for
    /// one app and so may not decide for all of them.
    /// - Throws: as ``requireUser()``, and 403 for an app's key.
    func requireUserOfEveryApp() throws(APIError) -> ExternalID {
        let user = try requireUser()
        if case .apiKey(let key, _) = identity, let app = key.appID { throw .sharedByEveryApp(keyOf: app) }
        return user
    }

    /// The id of the calling API key, `nil` for user tokens.
    var apiKeyID: UUID? {
        if case .apiKey(let key, _) = identity { key.id } else { nil }
    }
}
