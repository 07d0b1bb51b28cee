/// How Herald slows a client that keeps sending credentials it refuses (`HERALD_AUTH_FAILURES_PER_SECOND`,
/// `HERALD_AUTH_FAILURE_DELAY_MS`): each client address may be refused `allowance` times without delay; past it,
/// every 401 is answered after `delay`. A flood of garbage keys then costs a sleeping task per connection instead of
/// the CPU that delivery needs, and a client with a mistyped key still learns at once why it was refused.
public struct RefusedCredentialThrottle: Sendable, Hashable {
    /// Refusals per second, sustained, answered at once for one address.
    public var allowance: RateLimit
    /// How long each refusal past the allowance waits; zero answers every refusal at once.
    public var delay: Duration

    /// Ten refusals a second with bursts of twenty per address, then one second per refusal: a flood over N
    /// connections is answered at most N times a second.
    public static let standard = RefusedCredentialThrottle(
        allowance: RateLimit(perSecond: 10, burst: 20), delay: .seconds(1))

    public init(allowance: RateLimit, delay: Duration) {
        self.allowance = allowance
        self.delay = max(delay, .zero)
    }
}
