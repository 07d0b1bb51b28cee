public import Foundation

/// A provider token as processes share it: the compact JWT and its `iat`. A bearer credential: never log it.
public struct SharedProviderToken: Sendable, Equatable {
    public let jwt: String
    public let issuedAt: Date

    public init(jwt: String, issuedAt: Date) {
        self.jwt = jwt
        self.issuedAt = issuedAt
    }
}

/// Why a process asks the fleet for another provider token.
public enum ProviderTokenRenewalReason: Sendable, Equatable {
    /// Apple answered `ExpiredProviderToken` for a token old enough (20 minutes or more) to renew.
    case expired
    /// Apple answered `TooManyProviderTokenUpdates`: another process renewed first; use the fleet's newest token.
    case tooManyUpdates
}

/// The seam between a process's provider token source (the transport) and the fleet's shared tokens (a store):
/// the store decides which token every process uses, the source signs new ones and uses what it is given.
public protocol ProviderTokenSharing: Sendable {
    var teamID: String { get }
    var keyID: String { get }
    /// Signs a new token issued at `date`, without using it yet.
    func signToken(issuedAt date: Date) throws -> SharedProviderToken
    /// Uses `token` from now on, instead of minting its own until the token nears expiry.
    func adopt(_ token: SharedProviderToken)
    /// Called when Apple's answers ask for another token; the store answers with ``adopt(_:)``.
    func onRenewalNeeded(_ handler: @escaping @Sendable (ProviderTokenRenewalReason) -> Void)
}
