/// How Herald slows a client that keeps being refused (`HERALD_REFUSALS_PER_SECOND`, `HERALD_REFUSAL_DELAY_MS`):
/// each client address may get `allowance` 401s (credentials refused) and 429s (over its rate limit) without delay;
/// past it, every such answer comes after `delay`. A flood of garbage keys, or a loop that ignores `Retry-After`,
/// then costs a sleeping task per connection instead of the CPU that delivery needs, and a client with a mistyped
/// key still learns at once why it was refused.
public struct RefusalThrottle: Sendable, Hashable {
    /// Refusals per second, sustained, answered at once for one address.
    public var allowance: RateLimit
    /// How long each refusal past the allowance waits; zero answers every refusal at once.
    public var delay: Duration

    /// Ten refusals a second with bursts of twenty per address, then one second per refusal: a flood over N
    /// connections is answered at most N times a second.
    public static let standard = RefusalThrottle(allowance: RateLimit(perSecond: 10, burst: 20), delay: .seconds(1))

    public init(allowance: RateLimit, delay: Duration) {
        self.allowance = allowance
        self.delay = max(delay, .zero)
    }
}
