import Synchronization

/// Paces the database lookups one client address can cause with API keys the ingress has not seen: `burst` at once,
/// then `perSecond`, however many streams or connections the lookups come on. A lookup past the allowance waits its
/// turn instead of being refused, so a client with a new, valid key is only slowed; a flood of made-up `hk_` keys
/// costs sleeping streams, never more than the allowance of statements. (The HTTP API slows refusals per address
/// too, but its requests come one per connection; here one connection carries a thousand streams.)
final class LookupPacer: Sendable {
    /// The pacing of one address, as the generic cell rate algorithm keeps it: the instant its lookups are booked
    /// up to. Pure, with time passed in.
    struct Schedule: Sendable, Equatable {
        let interval: Duration
        let burst: Int
        private(set) var bookedUntil: Duration

        init(perSecond: Double, burst: Int, now: Duration) {
            interval = .seconds(1 / max(perSecond, .leastNonzeroMagnitude))
            self.burst = max(burst, 1)
            bookedUntil = now
        }

        /// Books the next lookup at `now` and returns how long it waits first.
        mutating func book(at now: Duration) -> Duration {
            bookedUntil = max(bookedUntil, now) + interval
            return max(.zero, bookedUntil - interval * burst - now)
        }

        /// Whether nothing is booked any more at `now`: a new schedule would pace the same.
        func isIdle(at now: Duration) -> Bool { bookedUntil <= now }
    }

    /// Addresses kept before idle ones are dropped.
    static let sweepThreshold = 10_000

    private struct State {
        var schedules: [String: Schedule] = [:]
        var lastSweep: Duration = .zero
    }

    private let perSecond: Double
    private let burst: Int
    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Returns when the lookup asked for by `address` may run.
    func waitForTurn(of address: String) async throws {
        let now = origin.duration(to: .now)
        let wait = state.withLock { state in
            // At most one sweep a second, so many busy addresses cost memory, never a scan per lookup.
            if state.schedules.count >= Self.sweepThreshold, now - state.lastSweep >= .seconds(1) {
                state.schedules = state.schedules.filter { !$0.value.isIdle(at: now) }
                state.lastSweep = now
            }
            var schedule = state.schedules[address] ?? Schedule(perSecond: perSecond, burst: burst, now: now)
            defer { state.schedules[address] = schedule }
            return schedule.book(at: now)
        }
        if wait > .zero { try await Task.sleep(for: wait) }
    }
}
