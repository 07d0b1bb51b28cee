import Synchronization

/// What ``ConnectionPool`` needs from a connection.
protocol PoolableConnection: AnyObject, Sendable {
    /// Whether an idle connection can be lent out again (it may have been closed by the server meanwhile).
    func checkAlive() async -> Bool
    /// Closes the connection and returns when it is closed.
    func close() async
}

/// A bounded pool of connections with asynchronous acquire, FIFO waiters and an acquire timeout.
///
/// It knows nothing of PostgreSQL: it opens connections with `open`, lends them out, and forgets the ones that are
/// released as broken. Every decision (use an idle connection, open one, wait) is taken in one critical section
/// with enqueuing, and every freed slot or connection goes to the first waiter, so no waiter sleeps while a
/// connection or a slot is free.
final class ConnectionPool<Connection: PoolableConnection>: Sendable {
    typealias Opener = @Sendable () async throws -> Connection

    /// What an acquirer is told to do.
    private enum Grant {
        /// Use this idle or just-released connection.
        case use(Connection)
        /// A slot is reserved: open a new connection in it.
        case open
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Grant, any Error>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var idle: [Connection] = []
        /// Connections lent out or being opened; `idle.count + busy <= maximum`.
        var busy = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var isShutDown = false

        /// Gives a freed slot to the first waiter, or forgets it.
        mutating func slotFreed() -> CheckedContinuation<Grant, any Error>? {
            guard !waiters.isEmpty, !isShutDown else {
                busy -= 1
                return nil
            }
            let waiter = waiters.removeFirst()
            waiter.timeout?.cancel()
            return waiter.continuation
        }
    }

    private let state = Mutex(State())
    private let maximum: Int
    private let acquireTimeout: Duration
    private let open: Opener

    init(maximum: Int, acquireTimeout: Duration, open: @escaping Opener) {
        precondition(maximum > 0, "a pool needs room for at least one connection")
        self.maximum = maximum
        self.acquireTimeout = acquireTimeout
        self.open = open
    }

    /// Lends a connection: an idle one that is still alive, a new one while there is room, otherwise the first one
    /// released, waiting at most the acquire timeout.
    func acquire() async throws -> Connection {
        while true {
            switch try await grant() {
            case .use(let connection):
                if await connection.checkAlive() { return connection }
                release(connection, reusable: false)
            case .open:
                do {
                    return try await open()
                } catch {
                    state.withLock { $0.slotFreed() }?.resume(returning: .open)
                    throw error
                }
            }
        }
    }

    /// Takes a connection back. A connection that is not `reusable` is dropped (which closes it) and its slot
    /// goes to the first waiter, who opens a replacement.
    func release(_ connection: Connection, reusable: Bool) {
        let (waiter, grant) = state.withLock { state -> (CheckedContinuation<Grant, any Error>?, Grant) in
            if reusable && !state.isShutDown {
                guard !state.waiters.isEmpty else {
                    state.busy -= 1
                    state.idle.append(connection)
                    return (nil, .open)
                }
                let waiter = state.waiters.removeFirst()
                waiter.timeout?.cancel()
                return (waiter.continuation, .use(connection))
            }
            return (state.slotFreed(), .open)
        }
        waiter?.resume(returning: grant)
    }

    /// Drops the idle connections and fails every waiter; connections still lent out are dropped on release.
    func shutdown() {
        // Closing happens as the last references go, outside the lock.
        withExtendedLifetime(beginShutdown()) {}
    }

    /// Like ``shutdown()``, and returns once every idle connection is closed.
    func shutdownAndClose() async {
        for connection in beginShutdown() { await connection.close() }
    }

    /// Refuses new work, fails every waiter and hands over the idle connections.
    private func beginShutdown() -> [Connection] {
        let (idle, waiters) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters {
            waiter.timeout?.cancel()
            waiter.continuation.resume(throwing: Self.shutDownError)
        }
        return idle
    }

    var idleCount: Int { state.withLock { $0.idle.count } }

    // MARK: Granting

    /// Decides, in one critical section, between an idle connection, a new slot and waiting in line.
    private func grant() async throws -> Grant {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        // The task's deadline (``PoolDeadline``) bounds the wait across every acquisition it makes.
        let wait =
            PoolDeadline.current.map { min(acquireTimeout, ContinuousClock.now.duration(to: $0)) } ?? acquireTimeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                let waiting = state.withLock { state -> Bool in
                    if state.isShutDown {
                        continuation.resume(throwing: Self.shutDownError)
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else if let connection = state.idle.popLast() {
                        state.busy += 1
                        continuation.resume(returning: .use(connection))
                    } else if state.idle.count + state.busy < maximum {
                        state.busy += 1
                        continuation.resume(returning: .open)
                    } else if wait <= .zero {
                        continuation.resume(throwing: Self.timeoutError(acquireTimeout))
                    } else {
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return true
                    }
                    return false
                }
                guard waiting else { return }
                let timeout = Task { [acquireTimeout] in
                    try? await Task.sleep(for: wait)
                    guard !Task.isCancelled else { return }
                    self.failWaiter(id, with: Self.timeoutError(acquireTimeout))
                }
                let stillWaiting = state.withLock { state -> Bool in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                    state.waiters[index].timeout = timeout
                    return true
                }
                if !stillWaiting { timeout.cancel() }
            }
        } onCancel: {
            failWaiter(id, with: CancellationError())
        }
    }

    private func failWaiter(_ id: Int, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timeout?.cancel()
        waiter?.continuation.resume(throwing: error)
    }

    private static var shutDownError: PostgresError {
        PostgresError(kind: .shutDown, message: "the connection pool has been shut down")
    }

    private static func timeoutError(_ timeout: Duration) -> PostgresError {
        PostgresError(
            kind: .poolTimeout,
            message: "no database connection became free within \(timeout); all are in use (raise the pool size or "
                + "find the slow queries)")
    }
}

/// A task's deadline for waiting on pools: a request that takes sessions one after another waits, in all, no longer
/// than its budget, not the acquire timeout once per session.
enum PoolDeadline {
    @TaskLocal static var current: ContinuousClock.Instant?
}
