import Synchronization

/// Permits to send, shared by everyone sending through one process's connections: at most ``limit`` pushes are
/// sent and not yet settled at once, and the limit follows the link (``InFlightLimit``).
///
/// A sender asks for permits before it takes work (the engine claims only as many deliveries as it got permits
/// for) and gets what is free, so pushes go out as earlier ones settle rather than a whole batch at a time, and
/// nothing claimed waits for a permit while its lease runs. Waiting senders are served first come, first served.
///
/// A small part of the window, the reserve, is kept free for senders that must not wait in that line (the engine's
/// immediate lane): they take from it ahead of everyone, and the others fill only the rest of the window.
public final class SendWindow: Sendable {
    /// Which part of the window a sender's permits come from.
    public enum Part: Sendable {
        /// The window less what the reserve keeps free, taken in turn.
        case general
        /// The reserve, taken ahead of every general sender.
        case reserve
    }

    private struct Waiter {
        let id: Int
        let wanted: Int
        let least: Int
        let continuation: CheckedContinuation<Int, Never>
    }

    private struct State {
        var limit: InFlightLimit
        /// The reserve's part of the window (a fraction of it); 0 keeps none.
        let reservedFraction: Double
        var inUse = 0
        /// Of ``inUse``, the permits taken from the reserve.
        var reserveInUse = 0
        /// When ``inUse`` last changed: the limit learns how many were in flight for how long.
        var lastChange: ContinuousClock.Instant
        var waiters: [Waiter] = []
        var reserveWaiters: [Waiter] = []
        var nextID = 0

        /// The reserve in a window of `window`: at least one permit while the window holds two, and never all of it.
        func reserve(in window: Int) -> Int {
            guard reservedFraction > 0, window > 1 else { return 0 }
            return min(window - 1, max(1, Int(Double(window) * reservedFraction)))
        }

        /// Hands what is free to the waiters, the reserve's first; returns whom to resume with how many.
        mutating func grant(at now: ContinuousClock.Instant) -> [(CheckedContinuation<Int, Never>, Int)] {
            var granted: [(CheckedContinuation<Int, Never>, Int)] = []
            let window = limit.window(at: now)
            let reserve = reserve(in: window)
            while let first = reserveWaiters.first, min(reserve - reserveInUse, window - inUse) > 0 {
                reserveWaiters.removeFirst()
                let count = min(first.wanted, reserve - reserveInUse, window - inUse)
                change(inUse: count, at: now)
                reserveInUse += count
                granted.append((first.continuation, count))
            }
            // General senders fill the window up to what the reserve keeps free.
            let general = window - max(0, reserve - reserveInUse)
            // A window narrower than what the first waits for gives it what the window holds once that is free.
            while let first = waiters.first, general - inUse >= min(first.least, general) {
                let waiter = waiters.removeFirst()
                let count = min(waiter.wanted, general - inUse)
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

    /// - Parameter reservedFraction: The reserve's part of the window; 0 (the default) keeps none.
    public init(bounds: InFlightLimit.Bounds, reservedFraction: Double = 0) {
        let now = ContinuousClock.now
        state = Mutex(
            State(
                limit: InFlightLimit(bounds: bounds, startingAt: now), reservedFraction: max(0, reservedFraction),
                lastChange: now))
    }

    /// The window now.
    public var limit: Int { state.withLock { $0.limit.window(at: .now) } }

    /// Pushes sent and not yet settled.
    public var inUse: Int { state.withLock { $0.inUse } }

    /// The reserve's size in the window now.
    public var reserve: Int { state.withLock { $0.reserve(in: $0.limit.window(at: .now)) } }

    /// Of ``inUse``, the permits taken from the reserve.
    public var reserveInUse: Int { state.withLock { $0.reserveInUse } }

    /// Waits until at least `least` pushes (at most `wanted`) may be sent; returns how many of `wanted` may go now,
    /// or 0 when the calling task is cancelled (then none were taken). Waiters are served in turn: one waiting for
    /// `least` holds back those behind it, so a few free permits do not go to many small claims. From the reserve,
    /// `least` is 1 and the line is the reserve's own, served first.
    public func acquire(upTo wanted: Int, atLeast least: Int = 1, from part: Part = .general) async -> Int {
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
                    let waiter = Waiter(id: id, wanted: wanted, least: least, continuation: continuation)
                    switch part {
                    case .general: state.waiters.append(waiter)
                    case .reserve: state.reserveWaiters.append(waiter)
                    }
                    return state.grant(at: .now)
                }
                for (waiter, count) in granted { waiter.resume(returning: count) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                guard let index = state.reserveWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.reserveWaiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: 0)
        }
    }

    /// `count` pushes are settled (answered, or recorded); their permits, taken from `part`, go to whoever waits.
    public func release(_ count: Int, to part: Part = .general) {
        give(back: count, to: part) { $0.settled(count, at: $1) }
    }

    /// `count` permits taken from `part` and not used (nothing was sent): they go to whoever waits and teach the limit
    /// nothing.
    public func returnUnused(_ count: Int, to part: Part = .general) {
        give(back: count, to: part) { _, _ in }
    }

    private func give(back count: Int, to part: Part, learn: (inout InFlightLimit, ContinuousClock.Instant) -> Void) {
        guard count > 0 else { return }
        let now = ContinuousClock.now
        let granted = state.withLock { state in
            state.change(inUse: -count, at: now)
            if part == .reserve { state.reserveInUse -= count }
            learn(&state.limit, now)
            return state.grant(at: now)
        }
        for (waiter, count) in granted { waiter.resume(returning: count) }
    }
}
