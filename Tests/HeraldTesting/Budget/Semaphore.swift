/// An asynchronous counting semaphore that serves waiters strictly in arrival order, so a request for many units
/// is not passed over forever by a stream of requests for one.
public actor Semaphore {
    public nonisolated let capacity: Int
    private var available: Int
    private var waiters: [(units: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(capacity: Int) {
        precondition(capacity > 0, "a semaphore needs at least one unit")
        self.capacity = capacity
        available = capacity
    }

    /// Runs `body` while holding `units` (at most ``capacity``), waiting for them first.
    public func withUnits<T: Sendable>(
        _ units: Int, _ body: @Sendable () async throws -> T
    ) async rethrows -> T {
        let units = min(units, capacity)
        await acquire(units)
        defer { release(units) }
        return try await body()
    }

    private func acquire(_ units: Int) async {
        if waiters.isEmpty && available >= units {
            available -= units
            return
        }
        await withCheckedContinuation { waiters.append((units, $0)) }
    }

    private func release(_ units: Int) {
        available += units
        while let first = waiters.first, first.units <= available {
            available -= first.units
            waiters.removeFirst()
            first.continuation.resume()
        }
    }
}
