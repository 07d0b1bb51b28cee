public import APNsCore
public import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// Keeps every process of the fleet on one APNs provider token per signing key, through ``ProviderTokenStore``.
///
/// Apple may refuse a key's token when it is replaced within 20 minutes (`TooManyProviderTokenUpdates`), and
/// whether it counts per connection or per key is not documented, so Herald assumes per key: the first process
/// that needs a token signs and stores it, every process and every restart adopts the newest stored one, and a
/// renewal (at 50 minutes, or after `ExpiredProviderToken` on a token at least 20 minutes old) inserts the next
/// generation, which exactly one process wins. A process checks the store every ``checkInterval`` and at once when
/// Apple's answers ask for another token. If the store is unreachable, the source signs its own only when the token
/// it was given nears expiry.
public final class ProviderTokenCoordinator: Service {
    public static let renewalAge: Duration = .seconds(50 * 60)
    static let minimumAge: Duration = .seconds(20 * 60)
    static let maximumAge: Duration = .seconds(60 * 60)

    private let store: ProviderTokenStore
    private let source: any ProviderTokenSharing
    private let checkInterval: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let doorbell = Doorbell()
    private let requested = Mutex<ProviderTokenRenewalReason?>(nil)

    public init(
        store: ProviderTokenStore, source: any ProviderTokenSharing, checkInterval: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.source = source
        self.checkInterval = checkInterval
        self.now = now
        self.logger = logger
    }

    /// Synchronises with the store until the task is cancelled or the service group shuts down.
    public func run() async {
        source.onRenewalNeeded { [weak self] reason in self?.renewalNeeded(reason) }
        await cancelWhenGracefulShutdown { await self.synchronizeUntilCancelled() }
    }

    private func synchronizeUntilCancelled() async {
        while !Task.isCancelled {
            let seen = doorbell.generation
            let reason = requested.withLock { current in
                defer { current = nil }
                return current
            }
            do {
                try await synchronize(reason: reason)
            } catch {
                logger.warning(
                    "cannot reach the shared APNs provider tokens; keeping the current one",
                    metadata: ["error": "\(error)", "apns.key_id": "\(source.keyID)"])
            }
            await doorbell.wait(after: seen, timeout: checkInterval)
        }
    }

    /// Apple asked for another token: synchronise now. An expiry outranks a refused update.
    private func renewalNeeded(_ reason: ProviderTokenRenewalReason) {
        requested.withLock { current in
            if current != .expired { current = reason }
        }
        doorbell.ring()
    }

    /// Adopts the key's newest stored token, first storing a new generation when there is none, it is due for
    /// renewal, or Apple called it expired when it was old enough to renew.
    public func synchronize(reason: ProviderTokenRenewalReason? = nil) async throws {
        let teamID = source.teamID
        let keyID = source.keyID
        var newest = try await store.newest(teamID: teamID, keyID: keyID)
        if shouldRenew(newest, reason: reason) {
            let token = try source.signToken(issuedAt: now())
            let generation = (newest?.generation ?? 0) + 1
            if try await store.insert(token, generation: generation, teamID: teamID, keyID: keyID) {
                logger.notice(
                    "signed the shared APNs provider token",
                    metadata: ["apns.key_id": "\(keyID)", "apns.token_generation": "\(generation)"])
                try await store.prune(teamID: teamID, keyID: keyID)
            }
            newest = try await store.newest(teamID: teamID, keyID: keyID)
        }
        if let newest, age(of: newest.token) < Self.maximumAge { source.adopt(newest.token) }
    }

    private func shouldRenew(_ newest: ProviderTokenStore.Stored?, reason: ProviderTokenRenewalReason?) -> Bool {
        guard let newest else { return true }
        let age = age(of: newest.token)
        if age >= Self.renewalAge { return true }
        guard reason == .expired else { return false }
        guard age >= Self.minimumAge else {
            logger.error(
                """
                APNs says the shared provider token is expired although it is only \(age) old: a host's clock is \
                probably wrong. Not renewing (Apple would answer TooManyProviderTokenUpdates); fix the clock.
                """,
                metadata: ["apns.key_id": "\(source.keyID)"])
            return false
        }
        return true
    }

    private func age(of token: SharedProviderToken) -> Duration {
        .milliseconds(Int64((now().timeIntervalSince(token.issuedAt) * 1000).rounded()))
    }
}
