import Foundation
import HeraldCore
import Logging
import Synchronization

/// The relayed pushes whose clients wait for Apple's final answer, and the one loop that reads those answers for all
/// of them: one query every poll interval while anyone waits, whatever their number, and none while no one does.
///
/// The engine writes a push's final log row in the transaction that records Apple's answer (or Herald's giving up);
/// the loop finds it through the log's notification index. A client waits until that row exists or its deadline
/// passes, and then gets nil.
final class RelayWaiters: Sendable {
    private struct Waiter {
        let since: Date
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<RelayOutcome?, Never>
    }

    private struct State {
        var waiters: [UUID: [Waiter]] = [:]
        var stopped = false
    }

    private let store: IngressStore
    private let interval: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// Rung when a waiter arrives, so an idle loop starts polling at once.
    private let bell: AsyncStream<Void>.Continuation
    private let rings: AsyncStream<Void>

    init(store: IngressStore, interval: Duration, logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
        let (rings, bell) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.rings = rings
        self.bell = bell
    }

    /// The final outcome of the push of `receipt`, or nil when none is recorded within `wait` (or the ingress stops).
    func outcome(of receipt: RelayReceipt, within wait: Duration) async -> RelayOutcome? {
        await withCheckedContinuation { continuation in
            let waiter = Waiter(since: receipt.acceptedAt, deadline: .now + wait, continuation: continuation)
            let stopped = state.withLock { state in
                if !state.stopped { state.waiters[receipt.id, default: []].append(waiter) }
                return state.stopped
            }
            if stopped { continuation.resume(returning: nil) } else { bell.yield() }
        }
    }

    /// Reads the answers until the task is cancelled, then answers every waiter still waiting with nil.
    func run() async {
        var iterator = rings.makeAsyncIterator()
        while !Task.isCancelled {
            let waiting = state.withLock { state in
                state.waiters.mapValues { waiters in waiters.map(\.since).min() ?? .distantPast }
            }
            if waiting.isEmpty {
                guard await iterator.next() != nil else { break }
                continue
            }
            await poll(waiting)
            try? await Task.sleep(for: interval)
        }
        let left = state.withLock { state in
            state.stopped = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap { $0 }
        }
        for waiter in left { waiter.continuation.resume(returning: nil) }
    }

    /// Reads the outcomes of the pushes `waiting` (by id, since their earliest acceptance) and answers their waiters;
    /// answers nil to those past their deadline.
    private func poll(_ waiting: [UUID: Date]) async {
        var outcomes: [UUID: RelayOutcome] = [:]
        do {
            // A second's margin: the log's times and the notification's come from the same server clock, but from
            // different transactions.
            let since = (waiting.values.min() ?? Date()).addingTimeInterval(-1)
            outcomes = try await store.outcomes(of: Array(waiting.keys), since: since)
        } catch {
            logger.warning("the APNs ingress cannot read the answers it waits for", metadata: ["error": "\(error)"])
        }
        let now = ContinuousClock.now
        let answered = state.withLock { state -> [(Waiter, RelayOutcome?)] in
            var answered: [(Waiter, RelayOutcome?)] = []
            for (id, waiters) in state.waiters {
                if let outcome = outcomes[id] {
                    answered += waiters.map { ($0, outcome) }
                    state.waiters[id] = nil
                    continue
                }
                let (late, patient) = (waiters.filter { $0.deadline <= now }, waiters.filter { $0.deadline > now })
                answered += late.map { ($0, nil) }
                state.waiters[id] = patient.isEmpty ? nil : patient
            }
            return answered
        }
        for (waiter, outcome) in answered { waiter.continuation.resume(returning: outcome) }
    }
}
