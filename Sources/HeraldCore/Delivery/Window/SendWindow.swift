import Synchronization

/// Permits to send, shared by everyone sending through one process's connections: at most ``limit`` pushes are
/// sent and not yet settled at once, and the limit follows the link (``InFlightLimit``).
///
/// A sender asks for permits before it takes work (the engine claims only as many deliveries as it got permits
/// for) and gets what is free, so pushes go out as earlier ones settle rather than a whole batch at a time, and
/// nothing claimed waits for a permit while its lease runs. Waiting senders are served first come, first served.
public final class SendWindow: Sendable {
    private struct Waiter {
        let id: Int
        let wanted: Int
        let least: Int
        let continuation: CheckedContinuation<Int, Never>
    }

    private struct State {
        var limit: InFlightLimit
        var inUse = 0
        /// When ``inUse`` last changed: the limit learns how many were in flight for how long.
        var lastChange: ContinuousClock.Instant
        var waiters: [Waiter] = []
        var nextID = 0

        /// Hands what is free to the waiters in order; returns whom to resume with how many.
        mutating func grant(at now: ContinuousClock.Instant) -> [(CheckedContinuation<Int, Never>, Int)] {
            var granted: [(CheckedContinuation<Int, Never>, Int)] = []
            let window = limit.window(at: now)
            // A window narrower than what the first waits for gives it what the window holds once that is free.
            while let first = waiters.first, window - inUse >= min(first.least, window) {
                let waiter = waiters.removeFirst()
                let count = min(waiter.wanted, window - inUse)
                change(inUse: count, at: now)
                granted.append((waiter.continuation, count))
            }
            return granted
        }

        mutating func change(inUse delta: Int, at now: ContinuousClock.Instant) {
            limit.held(inUse, for: lastChange.duration(to: now), until: now)
            lastChange = now
            inUse += delta
        }
    }

    private let state: Mutex<State>

    public init(bounds: InFlightLimit.Bounds) {
        let now = ContinuousClock.now
        state = Mutex(State(limit: InFlightLimit(bounds: bounds, startingAt: now), lastChange: now))
    }

    /// The window now.
    public var limit: Int { state.withLock { $0.limit.window(at: .now) } }

    /// Pushes sent and not yet settled.
    public var inUse: Int { state.withLock { $0.inUse } }

    /// Waits until at least `least` pushes (at most `wanted`) may be sent; returns how many of `wanted` may go now,
    /// or 0 when the calling task is cancelled (then none were taken). Waiters are served in turn: one waiting for
    /// `least` holds back those behind it, so a few free permits do not go to many small claims.
    public func acquire(upTo wanted: Int, atLeast least: Int = 1) async -> Int {
        guard wanted > 0, !Task.isCancelled else { return 0 }
        let least = min(max(1, least), wanted)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                let granted = state.withLock { state -> [(CheckedContinuation<Int, Never>, Int)] in
                    // Cancelled before queueing: the handler found nothing to remove.
                    if Task.isCancelled { return [(continuation, 0)] }
                    state.waiters.append(Waiter(id: id, wanted: wanted, least: least, continuation: continuation))
                    return state.grant(at: .now)
                }
                for (waiter, count) in granted { waiter.resume(returning: count) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: 0)
        }
    }

    /// `count` pushes are settled (answered, or recorded); their permits go to whoever waits.
    public func release(_ count: Int) {
        give(back: count) { $0.settled(count, at: $1) }
    }

    /// `count` permits taken and not used (nothing was sent): they go to whoever waits and teach the limit nothing.
    public func returnUnused(_ count: Int) {
        give(back: count) { _, _ in }
    }

    private func give(back count: Int, learn: (inout InFlightLimit, ContinuousClock.Instant) -> Void) {
        guard count > 0 else { return }
        let now = ContinuousClock.now
        let granted = state.withLock { state in
            state.change(inUse: -count, at: now)
            learn(&state.limit, now)
            return state.grant(at: now)
        }
        for (waiter, count) in granted { waiter.resume(returning: count) }
    }
}
