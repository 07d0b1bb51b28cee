import Synchronization

/// Counts the requests being answered, so a stopping ingress can let them finish before it closes its connections.
final class InFlightRequests: Sendable {
    private let count = Mutex(0)

    func begin() { count.withLock { $0 += 1 } }

    func end() { count.withLock { $0 -= 1 } }

    /// Returns once no request is being answered, at `deadline`, or when the task is cancelled.
    func drained(by deadline: ContinuousClock.Instant) async {
        while count.withLock({ $0 }) > 0, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
