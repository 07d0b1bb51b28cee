/// A token bucket: holds up to `burst` tokens, refilled at `rate` per second; each request takes one. Pure, with
/// the time passed in, so its arithmetic is tested without a clock.
struct TokenBucket: Sendable, Equatable {
    /// What a request is told.
    enum Decision: Sendable, Equatable {
        case allowed
        /// No token is left; one will be after this long.
        case refused(retryAfter: Duration)
    }

    let limit: RateLimit
    private var tokens: Double
    /// When `tokens` was last brought up to date, as an offset on the caller's clock.
    private var updatedAt: Duration

    /// A full bucket at `now`.
    init(limit: RateLimit, now: Duration) {
        self.limit = limit
        tokens = limit.burst
        updatedAt = now
    }

    /// Takes a token at `now` if there is one.
    mutating func take(at now: Duration) -> Decision {
        refill(to: now)
        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        let missing = 1 - tokens
        return .refused(retryAfter: .seconds(missing / limit.perSecond))
    }

    /// Whether the bucket is full at `now`: it then remembers nothing a fresh one would not.
    func isFull(at now: Duration) -> Bool {
        var copy = self
        copy.refill(to: now)
        return copy.tokens >= limit.burst
    }

    private mutating func refill(to now: Duration) {
        // A clock that went backwards (it should not) adds nothing rather than taking tokens away.
        guard now > updatedAt else { return }
        let elapsed = Double((now - updatedAt) / .seconds(1))
        tokens = min(limit.burst, tokens + elapsed * limit.perSecond)
        updatedAt = now
    }
}
