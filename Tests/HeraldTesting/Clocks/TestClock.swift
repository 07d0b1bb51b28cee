import Synchronization

/// A `Clock` the test moves by hand; sleeping on it returns at once.
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .nanoseconds(1) }
    public func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}
