public import APNsCore
public import Cryptography
public import Foundation
public import Logging
import Synchronization

/// A signed provider token and when it was issued.
public struct ProviderToken: Sendable, Equatable {
    /// The compact JWT, sent as `authorization: bearer <jwt>`. Never log it.
    public let jwt: String
    public let issuedAt: Date
    /// The `authorization` header value, built once rather than per request.
    let authorization: String

    init(jwt: String, issuedAt: Date) {
        self.jwt = jwt
        self.issuedAt = issuedAt
        authorization = "bearer " + jwt
    }
}

/// Why no provider token could be made.
public struct ProviderTokenError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// The one provider token of a signing key, shared by every connection of a team.
///
/// Signs `{"alg":"ES256","kid":KEY_ID}.{"iss":TEAM_ID,"iat":now}` and renews it following
/// ``ProviderTokenPolicy``. Thread-safe.
public final class ProviderTokenSource: Sendable {
    private struct Claims: Encodable {
        let iss: String
        let iat: Int64
    }

    private struct Sharing {
        /// Set once a fleet store has given a token: renewals then come from it, and this source signs its own
        /// only when the given token nears expiry (the store is unreachable).
        var isShared = false
        var renewalHandler: (@Sendable (ProviderTokenRenewalReason) -> Void)?
    }

    private let key: P256PrivateKey
    public let keyID: String
    public let teamID: String
    private let clock: any WallClock
    private let logger: Logger
    private let state: Mutex<(policy: ProviderTokenState, token: ProviderToken?)>
    private let sharing = Mutex(Sharing())

    /// - Parameters:
    ///   - key: The `.p8` signing key.
    ///   - keyID: Its 10-character key id (`kid`).
    ///   - teamID: The Apple Developer team id (`iss`).
    ///   - policy: Renewal timing; default renews after 50 minutes.
    ///   - clock: Source of `iat`; inject one in tests.
    ///   - logger: Receives the clock-skew warning.
    public init(
        key: P256PrivateKey, keyID: String, teamID: String, policy: ProviderTokenPolicy = ProviderTokenPolicy(),
        clock: any WallClock = SystemWallClock(), logger: Logger
    ) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
        self.logger = logger
        state = Mutex((ProviderTokenState(policy: policy), nil))
    }

    /// The current token, signing a new one first when it is due.
    /// - Throws: ``ProviderTokenError`` if signing fails.
    public func currentToken() throws(ProviderTokenError) -> ProviderToken {
        let now = clock.now()
        let shared = sharing.withLock { $0.isShared }
        let result: Result<ProviderToken, ProviderTokenError> = state.withLock { state in
            if let token = state.token, !state.policy.needsNewToken(at: now, shared: shared) { return .success(token) }
            // Whole seconds: `iat` is an integer, and the age checks must use the same instant Apple sees.
            let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            do {
                let jwt = try JWT.encode(
                    Claims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), key: .es256(key), keyID: keyID)
                let token = ProviderToken(jwt: jwt, issuedAt: issuedAt)
                state.token = token
                state.policy.issued(at: issuedAt)
                return .success(token)
            } catch {
                return .failure(ProviderTokenError(description: "cannot sign provider token: \(error)"))
            }
        }
        return try result.get()
    }

    /// Handles Apple's `403 ExpiredProviderToken` for a request that carried `token`.
    public func reportExpired(_ token: ProviderToken) {
        let now = clock.now()
        let decision = state.withLock { $0.policy.expiredReported(tokenIssuedAt: token.issuedAt, at: now) }
        switch decision {
        case .renew:
            logger.info("APNs provider token expired; signing a new one", metadata: [APNsMetadataKey.keyID: "\(keyID)"])
            sharing.withLock { $0.renewalHandler }?(.expired)
        case .alreadyRenewed:
            break
        case .clockSkewSuspected(let age):
            logger.error(
                """
                APNs says a provider token is expired although it is only \(age) old: this host's clock is probably \
                wrong. Not renewing (Apple would answer TooManyProviderTokenUpdates); fix the clock.
                """,
                metadata: [APNsMetadataKey.keyID: "\(keyID)"])
        }
    }

    /// Handles Apple's `429 TooManyProviderTokenUpdates` for a request that carried `token`: another process renewed
    /// the key's token first. With a fleet store, it is asked for the newest token; alone, nothing is renewed (a new
    /// token would only be refused again) and the token in use stays.
    public func reportTooManyUpdates(_ token: ProviderToken) {
        logger.warning(
            "APNs refused a provider token update for this key (TooManyProviderTokenUpdates)",
            metadata: [APNsMetadataKey.keyID: "\(keyID)"])
        sharing.withLock { $0.renewalHandler }?(.tooManyUpdates)
    }
}

extension ProviderTokenSource: ProviderTokenSharing {
    public func signToken(issuedAt date: Date) throws -> SharedProviderToken {
        let issuedAt = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let jwt = try JWT.encode(
            Claims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), key: .es256(key), keyID: keyID)
        return SharedProviderToken(jwt: jwt, issuedAt: issuedAt)
    }

    public func adopt(_ token: SharedProviderToken) {
        sharing.withLock { $0.isShared = true }
        state.withLock { state in
            guard state.token?.jwt != token.jwt else { return }
            state.token = ProviderToken(jwt: token.jwt, issuedAt: token.issuedAt)
            state.policy.issued(at: token.issuedAt)
        }
    }

    public func onRenewalNeeded(_ handler: @escaping @Sendable (ProviderTokenRenewalReason) -> Void) {
        sharing.withLock { $0.renewalHandler = handler }
    }
}
