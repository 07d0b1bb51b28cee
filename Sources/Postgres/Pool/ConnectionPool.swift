import Synchronization

/// What ``ConnectionPool`` needs from a connection.
protocol PoolableConnection: AnyObject, Sendable {
    /// Whether an idle connection can be lent out again (it may have been closed by the server meanwhile).
    func checkAlive() async -> Bool
}

/// A bounded pool of connections with asynchronous acquire, FIFO waiters and an acquire timeout.
///
/// It knows nothing of PostgreSQL: it opens connections with `open`, lends them out, and forgets the ones that are
/// released as broken, opening replacements on demand.
final class ConnectionPool<Connection: PoolableConnection>: Sendable {
    typealias Opener = @Sendable () async throws -> Connection

    private struct Waiter {
        let continuation: CheckedContinuation<Connection, any Error>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var idle: [Connection] = []
        /// Connections lent out or being opened; `idle.count + busy <= maximum`.
        var busy = 0
        var waiters: [(id: Int, waiter: Waiter)] = []
        var nextWaiterID = 0
        var isShutDown = false
    }

    private enum Decision {
        case use(Connection)
        case open
        case wait
        case fail(any Error)
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
            try Task.checkCancellation()
            let decision = state.withLock { state -> Decision in
                if state.isShutDown { return .fail(Self.shutDownError) }
                if let connection = state.idle.popLast() {
                    state.busy += 1
                    return .use(connection)
                }
                if state.idle.count + state.busy < maximum {
                    state.busy += 1
                    return .open
                }
                return .wait
            }
            switch decision {
            case .use(let connection):
                if await connection.checkAlive() { return connection }
                release(connection, reusable: false)
            case .open:
                do {
                    return try await open()
                } catch {
                    state.withLock { $0.busy -= 1 }
                    throw error
                }
            case .wait:
                return try await waitForRelease()
            case .fail(let error):
                throw error
            }
        }
    }

    /// Takes a connection back. A connection that is not `reusable` is dropped (which closes it) and, if a caller
    /// is waiting, a replacement is opened for it.
    func release(_ connection: Connection, reusable: Bool) {
        let replace = state.withLock { state -> Bool in
            state.busy -= 1
            if reusable && !state.isShutDown {
                if !state.waiters.isEmpty {
                    let (_, waiter) = state.waiters.removeFirst()
                    waiter.timeout?.cancel()
                    state.busy += 1
                    waiter.continuation.resume(returning: connection)
                } else {
                    state.idle.append(connection)
                }
                return false
            }
            guard !state.waiters.isEmpty, !state.isShutDown else { return false }
            state.busy += 1
            return true
        }
        if replace { openForWaiter() }
    }

    /// Drops the idle connections and fails every waiter; connections still lent out are dropped on release.
    func shutdown() {
        let waiters = state.withLock { state in
            state.isShutDown = true
            state.idle.removeAll()
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.waiter)
        }
        for waiter in waiters {
            waiter.timeout?.cancel()
            waiter.continuation.resume(throwing: Self.shutDownError)
        }
    }

    var idleCount: Int { state.withLock { $0.idle.count } }

    // MARK: Waiting

    private func waitForRelease() async throws -> Connection {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let enqueued = state.withLock { state -> Bool in
                    guard !state.isShutDown else { return false }
                    state.waiters.append((id, Waiter(continuation: continuation)))
                    return true
                }
                guard enqueued else {
                    continuation.resume(throwing: Self.shutDownError)
                    return
                }
                let timeout = Task { [acquireTimeout] in
                    try? await Task.sleep(for: acquireTimeout)
                    guard !Task.isCancelled else { return }
                    self.failWaiter(id, with: Self.timeoutError(acquireTimeout))
                }
                let stillWaiting = state.withLock { state -> Bool in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                    state.waiters[index].waiter.timeout = timeout
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
            return state.waiters.remove(at: index).waiter
        }
        waiter?.timeout?.cancel()
        waiter?.continuation.resume(throwing: error)
    }

    /// Opens a connection for the first waiter (a slot is already reserved for it in `busy`).
    private func openForWaiter() {
        Task {
            let result = await Result(awaiting: { try await open() })
            state.withLock { state in
                guard !state.waiters.isEmpty else {
                    state.busy -= 1
                    if case .success(let connection) = result, !state.isShutDown { state.idle.append(connection) }
                    return
                }
                let (_, waiter) = state.waiters.removeFirst()
                waiter.timeout?.cancel()
                switch result {
                case .success(let connection): waiter.continuation.resume(returning: connection)
                case .failure(let error):
                    state.busy -= 1
                    waiter.continuation.resume(throwing: error)
                }
            }
        }
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

extension Result where Failure == any Error {
    fileprivate init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
