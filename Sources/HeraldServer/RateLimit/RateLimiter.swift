import Foundation
import HeraldCore
import Synchronization

/// One ``TokenBucket`` per caller: per API key, per user for user tokens, and per client address for refused
/// credentials. Buckets are made on a caller's first request; full ones (idle callers) are dropped once there are
/// many, so memory follows the callers of the last seconds rather than every key, user or address ever seen. A sweep
/// runs at most once a second, so many active callers cost memory, never a scan per request.
final class RateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    /// Whose bucket a request takes from.
    enum Caller: Hashable, Sendable {
        case apiKey(UUID)
        case user(ExternalID)
        /// A client address whose credentials were refused.
        case address(String)
    }

    /// Buckets kept before full ones are dropped.
    static var sweepThreshold: Int { 10_000 }

    private let clock: C
    private let origin: C.Instant
    private struct State {
        var buckets: [Caller: TokenBucket] = [:]
        var lastSweep: Duration = .zero
    }

    private let state = Mutex(State())

    init(clock: C) {
        self.clock = clock
        origin = clock.now
    }

    /// Takes a token from `caller`'s bucket, made with `limit` if it has none (or had another limit).
    func take(for caller: Caller, limit: RateLimit) -> TokenBucket.Decision {
        let now = origin.duration(to: clock.now)
        return state.withLock { state in
            if state.buckets.count >= Self.sweepThreshold, now - state.lastSweep >= .seconds(1) {
                state.buckets = state.buckets.filter { !$0.value.isFull(at: now) }
                state.lastSweep = now
            }
            var bucket =
                state.buckets[caller].flatMap { $0.limit == limit ? $0 : nil } ?? TokenBucket(limit: limit, now: now)
            defer { state.buckets[caller] = bucket }
            return bucket.take(at: now)
        }
    }

    /// Buckets kept now.
    var count: Int { state.withLock { $0.buckets.count } }
}
