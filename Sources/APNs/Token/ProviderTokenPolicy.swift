import APNsCore
import Foundation

/// When a provider token is renewed, as pure state: no clock, no signing.
///
/// Apple refuses tokens older than an hour (`ExpiredProviderToken`) and tokens renewed more often than
/// every 20 minutes (`TooManyProviderTokenUpdates`), so a token lives between ``minimumAge`` and
/// ``maximumAge`` and is renewed at ``renewalAge``.
public struct ProviderTokenPolicy: Sendable, Equatable {
    public static let minimumAge: Duration = .seconds(20 * 60)
    public static let maximumAge: Duration = .seconds(60 * 60)
    /// With fleet-shared tokens, the age at which a process stops waiting for the store and signs its own.
    public static let sharedFallbackAge: Duration = .seconds(55 * 60)

    /// Age at which the token is renewed; clamped to 20…59 minutes. Default 50 minutes.
    public let renewalAge: Duration

    public init(renewalAge: Duration = .seconds(50 * 60)) {
        self.renewalAge = min(max(renewalAge, Self.minimumAge), Self.maximumAge - .seconds(60))
    }
}

/// The token lifecycle for one key: which token is current and what to do when Apple calls it expired.
struct ProviderTokenState: Sendable, Equatable {
    /// What to do after Apple answered `403 ExpiredProviderToken`.
    enum ExpiredTokenDecision: Equatable {
        /// The token is old enough: a new one will be made on the next request.
        case renew
        /// Another connection already replaced that token.
        case alreadyRenewed
        /// The token is younger than 20 minutes, so the clock is wrong; renewing would only earn
        /// `TooManyProviderTokenUpdates`. Keep the token and report the skew.
        case clockSkewSuspected(age: Duration)
    }

    let policy: ProviderTokenPolicy
    private(set) var issuedAt: Date?
    private var renewalRequested = false

    init(policy: ProviderTokenPolicy) { self.policy = policy }

    /// Whether a new token must be signed here before the next request at `now`. With `shared` tokens the fleet's
    /// store renews them, so this process signs its own only when the one it was given is about to expire.
    func needsNewToken(at now: Date, shared: Bool = false) -> Bool {
        guard let issuedAt else { return true }
        if shared { return age(of: issuedAt, at: now) >= ProviderTokenPolicy.sharedFallbackAge }
        if renewalRequested { return true }
        return age(of: issuedAt, at: now) >= policy.renewalAge
    }

    /// Records a freshly signed token.
    mutating func issued(at date: Date) {
        issuedAt = date
        renewalRequested = false
    }

    mutating func expiredReported(tokenIssuedAt: Date, at now: Date) -> ExpiredTokenDecision {
        guard tokenIssuedAt == issuedAt, !renewalRequested else { return .alreadyRenewed }
        let age = age(of: tokenIssuedAt, at: now)
        guard age >= ProviderTokenPolicy.minimumAge else { return .clockSkewSuspected(age: age) }
        renewalRequested = true
        return .renew
    }

    private func age(of date: Date, at now: Date) -> Duration {
        .milliseconds(Int64((now.timeIntervalSince(date) * 1000).rounded()))
    }
}
