/// How many pushes may be sent and not yet settled at once. For the delivery engine "settled" means recorded, so
/// this is its crash window: a process killed now sends these pushes again.
///
/// It is the bandwidth-delay product at the best rate seen lately, with headroom, and never more than an eighth of
/// what the current burst has settled. Time is cut in 50 ms buckets and read in spans of four (200 ms, several write
/// cycles, so a span's rate is not the luck of one group commit): of the spans of the last 10 s whose rate came
/// within a tenth of the best, the one that had the fewest pushes in flight on average (Little's law) sets the
/// window, times the headroom, between a floor and a ceiling. While the window holds the rate back, a wider window
/// brings a better rate and the window keeps growing; once something else sets the pace (the CPU, the database,
/// Apple) a wider one brings nothing, the narrower span that reached the same rate is chosen, and the window stops.
/// A burst earns its window as it delivers, so a short fan-out, or a crash early in a long one, sends little twice;
/// after a second with nothing settled the burst is over and the window is back at the floor.
///
/// Not the shortest round trip, as TCP's BBR takes: the engine writes answers in groups, so one answer waits for a
/// write and the next for none, and the shortest round trip understates the pipe by a multiple. The headroom is
/// large (4) because a wider window keeps buying a little: larger claims and groups cost less per row, about 7% more
/// rate per half again as wide past the knee on a 2-core machine. A backlog that keeps the window full for longer
/// than 10 s loses the narrower span and the window grows again: a full window cannot show how little would do
/// without narrowing on purpose, as BBR's ProbeRTT does, which this does not.
public struct InFlightLimit: Sendable {
    /// The floor, ceiling and headroom.
    public struct Bounds: Sendable, Equatable {
        /// Pushes that may always be in flight. Default 64.
        public var floor: Int
        /// Pushes that may never be exceeded. Default 2,000.
        public var ceiling: Int
        /// The window over the pushes in flight at the best rate. Default 4.
        public var headroom: Double

        public init(floor: Int = 64, ceiling: Int = 2000, headroom: Double = 4) {
            self.ceiling = max(1, ceiling)
            self.floor = min(max(1, floor), self.ceiling)
            self.headroom = max(1, headroom)
        }
    }

    public typealias Instant = ContinuousClock.Instant

    static let bucketLength = Duration.milliseconds(50)
    /// Buckets per span.
    static let spanBuckets: Int64 = 4
    /// Spans ending in the last 10 s are compared.
    static let comparedBuckets: Int64 = 200
    /// With nothing settled in the last second, the window is back at the floor.
    static let idleBuckets: Int64 = 20

    private struct Bucket {
        var number: Int64 = -1
        var settled = 0
        /// Pushes in flight × seconds they were, added up.
        var held = 0.0
    }

    public let bounds: Bounds
    private let origin: Instant
    /// The window of the bucket filling now, worked out when the bucket's first permit moved: its spans are whole
    /// buckets, which no longer change, and the burst's share is read then too, so it can only lag, by one bucket.
    private var cached: (bucket: Int64, window: Int)?
    /// Pushes settled since the last idle second, and when the last of them settled.
    private var burst = (settled: 0, last: Int64(-1))
    /// A burst may have in flight at most this share of what it has settled so far: a `kill -9` a third of the way
    /// into a 2,000-device fan-out then resends 1–3 % of it (measured), and a long burst reaches 2,000 after 16,000.
    static let burstShare = 8
    private var buckets = [Bucket](repeating: Bucket(), count: Int(comparedBuckets + spanBuckets))

    public init(bounds: Bounds, startingAt origin: Instant) {
        self.bounds = bounds
        self.origin = origin
    }

    /// `count` pushes settled at `now`.
    public mutating func settled(_ count: Int, at now: Instant) {
        guard count > 0 else { return }
        let number = bucketNumber(now)
        if burst.last < 0 || number - burst.last > Self.idleBuckets { burst.settled = 0 }
        burst = (burst.settled + count, number)
        update(at: now) { $0.settled += count }
    }

    /// `pushes` were in flight for `duration`, until `now`.
    public mutating func held(_ pushes: Int, for duration: Duration, until now: Instant) {
        guard pushes > 0, duration > .zero else { return }
        update(at: now) { $0.held += Double(pushes) * duration.seconds }
    }

    /// The window at `now`, worked out once per bucket.
    public mutating func window(at now: Instant) -> Int {
        let bucket = bucketNumber(now)
        if let cached, cached.bucket == bucket { return cached.window }
        let window = value(at: now)
        cached = (bucket, window)
        return window
    }

    /// The window at `now`.
    public func value(at now: Instant) -> Int {
        let current = bucketNumber(now)
        // Spans of whole buckets only: the one filling now would understate the rate.
        let spans = (1...Self.comparedBuckets).map { span(endingAt: current - $0) }
        guard spans.prefix(Int(Self.idleBuckets)).contains(where: { $0.settled > 0 }),
            let most = spans.map(\.settled).max()
        else { return bounds.floor }
        let best = spans.filter { Double($0.settled) >= 0.9 * Double(most) }.min { $0.held < $1.held }!
        let inFlight = best.held / (Self.bucketLength * Int(Self.spanBuckets)).seconds
        // A burst earns its window as it delivers, so a short one (and a crash early in a long one) resends little.
        let earned = Double(burst.settled / Self.burstShare)
        let window = min(inFlight * bounds.headroom, earned)
        guard window < Double(bounds.ceiling) else { return bounds.ceiling }
        return max(bounds.floor, Int(window.rounded(.up)))
    }

    /// What the four buckets up to `last` saw together.
    private func span(endingAt last: Int64) -> (settled: Int, held: Double) {
        var total = (settled: 0, held: 0.0)
        for number in (last - Self.spanBuckets + 1)...last where number >= 0 {
            let bucket = buckets[slot(number)]
            guard bucket.number == number else { continue }
            total.settled += bucket.settled
            total.held += bucket.held
        }
        return total
    }

    private mutating func update(at now: Instant, _ change: (inout Bucket) -> Void) {
        let number = bucketNumber(now)
        let slot = slot(number)
        if buckets[slot].number != number { buckets[slot] = Bucket(number: number) }
        change(&buckets[slot])
    }

    private func slot(_ number: Int64) -> Int { Int(number % Int64(buckets.count)) }

    private func bucketNumber(_ instant: Instant) -> Int64 {
        max(0, Int64(origin.duration(to: instant) / Self.bucketLength))
    }
}
