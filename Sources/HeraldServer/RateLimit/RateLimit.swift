/// How many API requests one caller may make: a sustained rate and a burst (`HERALD_RATE_LIMIT_PER_SECOND`,
/// `HERALD_RATE_LIMIT_BURST`, or a key's own `--rate-limit`).
public struct RateLimit: Sendable, Hashable {
    /// Requests per second, sustained.
    public var perSecond: Double
    /// The most requests at once after a quiet spell.
    public var burst: Double

    /// Fifty requests a second with bursts of a hundred: far above what a backend or an app needs, far below what
    /// it takes to crowd others out.
    public static let standard = RateLimit(perSecond: 50, burst: 100)

    public init(perSecond: Double, burst: Double) {
        self.perSecond = max(perSecond, .leastNonzeroMagnitude)
        self.burst = max(burst, 1)
    }

    /// A key's own limit (`herald keys create --rate-limit N`): `N` a second, with bursts of twice that.
    public init(keyRequestsPerSecond: Int) {
        self.init(perSecond: Double(keyRequestsPerSecond), burst: Double(keyRequestsPerSecond) * 2)
    }
}
