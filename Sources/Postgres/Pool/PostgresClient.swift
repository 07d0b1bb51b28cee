public import Logging

extension PostgresConnection: PoolableConnection {}

/// A bounded pool of PostgreSQL sessions: the way Herald talks to its database.
public final class PostgresClient: Sendable {
    public struct Options: Sendable {
        /// The most sessions open at once.
        public var maximumConnections = 10
        /// How long ``PostgresClient/withConnection(_:)`` waits for a free session before it throws `.poolTimeout`.
        public var acquireTimeout: Duration = .seconds(5)

        public init(maximumConnections: Int = 10, acquireTimeout: Duration = .seconds(5)) {
            self.maximumConnections = maximumConnections
            self.acquireTimeout = acquireTimeout
        }
    }

    public let configuration: PostgresConfiguration
    private let pool: ConnectionPool<PostgresConnection>
    private let logger: Logger

    public init(configuration: PostgresConfiguration, options: Options = Options(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        pool = ConnectionPool(maximum: options.maximumConnections, acquireTimeout: options.acquireTimeout) {
            try await PostgresConnection.connect(configuration: configuration, logger: logger)
        }
    }

    /// Runs `body` with at most `budget` of waiting for free sessions in all, across every session it (or a child
    /// task) takes from any pool: past it, an acquisition throws `.poolTimeout` at once.
    public static func withWaitBudget<T>(_ budget: Duration, _ body: () async throws -> T) async rethrows -> T {
        let deadline = ContinuousClock.now + budget
        let earliest = PoolDeadline.current.map { min($0, deadline) } ?? deadline
        return try await PoolDeadline.$current.withValue(earliest) { try await body() }
    }

    /// Lends a session to `body`. The session must not escape the closure.
    ///
    /// A session that broke, or that `body` left inside a transaction, is closed instead of being reused.
    public func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await pool.acquire()
        do {
            let value = try await body(connection)
            pool.release(connection, reusable: await connection.checkAlive())
            return value
        } catch {
            let broken = (error as? PostgresError)?.isConnectionFailure ?? false
            pool.release(connection, reusable: broken ? false : await connection.checkAlive())
            throw error
        }
    }

    /// Runs `body` in a transaction on one session: committed when it returns, rolled back when it throws.
    public func withTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { try await $0.withTransaction(body) }
    }

    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try await $0.query(query) }
    }

    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await withConnection { try await $0.execute(query) }
    }

    public func query<Statement: PostgresStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        try await withConnection { try await $0.query(statement) }
    }

    @discardableResult
    public func execute(_ statement: some PostgresStatement) async throws -> Int {
        try await withConnection { try await $0.execute(statement) }
    }

    /// Closes idle sessions and refuses new work; sessions in use close when they are given back. The sessions
    /// end on their own threads after this returns.
    public func shutdown() {
        pool.shutdown()
    }

    /// Like ``shutdown()``, and returns once every idle session has ended: its `PQfinish` ran and its thread left.
    ///
    /// A process calls this before it exits: a session still ending during `exit` races the C libraries' exit-time
    /// cleanup (libpq's TLS and SCRAM use OpenSSL, whose global state `exit` frees).
    public func close() async {
        await pool.shutdownAndClose()
    }
}
