import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldServer

/// The token bucket's arithmetic, with time passed in.
@Suite struct TokenBucketTests {
    @Test func aBurstIsAllowedThenTheRateRefills() {
        var bucket = TokenBucket(limit: RateLimit(perSecond: 2, burst: 3), now: .zero)
        for _ in 0..<3 { #expect(bucket.take(at: .zero) == .allowed) }
        #expect(bucket.take(at: .zero) == .refused(retryAfter: .milliseconds(500)))
        #expect(bucket.take(at: .milliseconds(250)) == .refused(retryAfter: .milliseconds(250)))
        #expect(bucket.take(at: .milliseconds(500)) == .allowed)
        #expect(bucket.take(at: .milliseconds(500)) == .refused(retryAfter: .milliseconds(500)))
        #expect(!bucket.isFull(at: .seconds(1)))
        #expect(bucket.isFull(at: .seconds(2)), "refilled, never above the burst")
        for _ in 0..<3 { #expect(bucket.take(at: .seconds(60)) == .allowed) }
        #expect(bucket.take(at: .seconds(60)) != .allowed)
    }

    @Test func aClockGoingBackwardsAddsNothing() {
        var bucket = TokenBucket(limit: RateLimit(perSecond: 1, burst: 1), now: .seconds(10))
        #expect(bucket.take(at: .seconds(10)) == .allowed)
        #expect(bucket.take(at: .seconds(5)) != .allowed)
    }
}

@Suite struct RateLimiterTests {
    @Test func eachCallerHasItsOwnBucket() {
        let clock = TestClock()
        let limiter = RateLimiter(clock: clock)
        let limit = RateLimit(perSecond: 1, burst: 2)
        let key = RateLimiter<TestClock>.Caller.apiKey(UUID())
        for _ in 0..<2 { #expect(limiter.take(for: key, limit: limit) == .allowed) }
        #expect(limiter.take(for: key, limit: limit) == .refused(retryAfter: .seconds(1)))
        #expect(limiter.take(for: .user(ExternalID("alice")!), limit: limit) == .allowed, "another caller")
        #expect(limiter.take(for: key, limit: RateLimit(perSecond: 5, burst: 5)) == .allowed, "a changed limit")
        clock.advance(by: .seconds(1))
        #expect(limiter.take(for: key, limit: limit) == .allowed)
        #expect(limiter.count == 2)
    }
}

extension RateLimiterTests {
    @Test func idleCallersAreForgottenOnceThereAreMany() {
        let clock = TestClock()
        let limiter = RateLimiter(clock: clock)
        let limit = RateLimit(perSecond: 1, burst: 2)
        let callers = RateLimiter<TestClock>.sweepThreshold
        for _ in 0..<callers { _ = limiter.take(for: .apiKey(UUID()), limit: limit) }
        #expect(limiter.count == callers)
        let busy = RateLimiter<TestClock>.Caller.user(ExternalID("busy")!)
        clock.advance(by: .seconds(10))
        for _ in 0..<2 { _ = limiter.take(for: busy, limit: limit) }
        #expect(limiter.count == 1, "the idle callers' buckets were full again, so they were dropped")
        _ = limiter.take(for: .apiKey(UUID()), limit: limit)
        #expect(limiter.take(for: busy, limit: limit) != .allowed, "a caller in use keeps its bucket")
    }
}

/// Over its limit, a key or a user gets 429 with `Retry-After` and a JSON error; others, and health, metrics and the
/// dashboard page, go on.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct RateLimitAPITests {
    @Test func aCallerOverItsLimitGets429() async throws {
        var configured = try await APIHarness.make()
        configured.settings.rateLimit = RateLimit(perSecond: 0.2, burst: 3)
        let harness = configured
        let ownLimit = try await harness.services.keys.create(name: "busy", scope: .read, rateLimit: 1000)
        #expect(ownLimit.key.rateLimit == 1000)
        let refusedLimit = await #expect(throws: DomainError.self) {
            try await harness.services.keys.create(name: "none", scope: .read, rateLimit: 0)
        }
        #expect(refusedLimit?.field == "rateLimit")
        try await harness.run { api in
            let read = harness.bearer(harness.keys[.read]!)
            for _ in 0..<3 { #expect(try await api.call(.get, "/api/v1/logs", headers: read).status == .ok) }
            let refused = try await api.call(.get, "/api/v1/logs", headers: read)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.error == "rate_limited")
            #expect(refused.headers[.retryAfter] == "5", "a token is back after 1 / 0.2 s")
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok, "another key")
            for _ in 0..<10 {
                #expect(
                    try await api.call(.get, "/api/v1/logs", headers: harness.bearer(ownLimit.secret)).status == .ok)
            }
            let user = try harness.user("alice")
            for _ in 0..<3 { _ = try await api.call(.get, "/api/v1/devices", headers: user) }
            #expect(try await api.call(.get, "/api/v1/devices", headers: user).status == .tooManyRequests)
            #expect(
                try await api.call(.get, "/api/v1/devices", headers: try harness.user("bob")).status != .tooManyRequests
            )
            for path in ["/healthz", "/readyz", "/metrics", "/dashboard"] {
                for _ in 0..<5 {
                    #expect(try await api.call(.get, path, headers: read).status != .tooManyRequests, "\(path)")
                }
            }
            #expect(try await api.call(.get, "/metrics").text.contains("herald_http_requests_rate_limited_total 2"))
        }
    }
}

/// A client address refused past its allowance waits for each further 401 or 429; valid requests from it do not.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct RefusalThrottleTests {
    @Test func refusalsPastTheAllowanceAreDelayed() async throws {
        var configured = try await APIHarness.make()
        configured.settings.refusals = RefusalThrottle(
            allowance: RateLimit(perSecond: 0.01, burst: 3), delay: .milliseconds(1500))
        configured.settings.rateLimit = RateLimit(perSecond: 0.01, burst: 2)
        let harness = configured
        try await harness.run { api in
            let garbage = harness.bearer("hk_" + String(repeating: "x", count: 43))
            for _ in 0..<2 {
                #expect(try await api.call(.get, "/api/v1/logs", headers: garbage).status == .unauthorized)
            }
            let read = harness.bearer(harness.keys[.read]!)
            for _ in 0..<2 { #expect(try await api.call(.get, "/api/v1/logs", headers: read).status == .ok) }
            let clock = ContinuousClock()
            var start = clock.now
            #expect(try await api.call(.get, "/api/v1/logs", headers: read).status == .tooManyRequests)
            #expect(start.duration(to: clock.now) < .milliseconds(1500), "the third refusal is within the allowance")
            start = clock.now
            let delayed = try await api.call(.get, "/api/v1/logs", headers: garbage)
            #expect(delayed.status == .unauthorized)
            #expect(delayed.error == "unauthorized", "the answer is the same, only later")
            #expect(start.duration(to: clock.now) >= .milliseconds(1500))
            start = clock.now
            #expect(try await api.call(.get, "/api/v1/logs", headers: read).status == .tooManyRequests)
            #expect(start.duration(to: clock.now) >= .milliseconds(1500), "a 429 past the allowance waits too")
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok, "valid at once")
            #expect(try await api.call(.get, "/metrics").text.contains("herald_http_refusals_delayed_total 2"))
        }
    }
}
