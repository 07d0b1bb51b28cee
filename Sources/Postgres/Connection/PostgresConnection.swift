public import Logging

/// One PostgreSQL session.
///
/// Every libpq call runs on the connection's own thread, never on Swift's cooperative pool; calls from several
/// tasks are queued and run one at a time. Get connections from a ``PostgresClient``; a connection lent to a closure
/// must not escape it.
public final class PostgresConnection: Sendable {
    private let thread: DedicatedThread
    private let handle: LibPQConnection
    let logger: Logger

    private init(thread: DedicatedThread, handle: LibPQConnection, logger: Logger) {
        self.thread = thread
        self.handle = handle
        self.logger = logger
    }

    /// Opens a session with `configuration`.
    public static func connect(configuration: PostgresConfiguration, logger: Logger) async throws -> PostgresConnection
    {
        let thread = DedicatedThread(name: "herald.postgres")
        do {
            let parameters = configuration.connectParameters
            let handle = try await thread.run { try LibPQConnection(parameters: parameters) }
            return PostgresConnection(thread: thread, handle: handle, logger: logger)
        } catch {
            thread.stop()
            throw error
        }
    }

    /// The handle is given to the thread's last job, so `PQfinish` runs on the thread that owned the session.
    deinit {
        let handle = self.handle
        thread.stop { withExtendedLifetime(handle) {} }
    }

    /// Closes the session on its thread and returns when that thread has ended. The connection is unusable after.
    func close() async {
        let handle = self.handle
        await thread.stopAndWait { handle.finish() }
    }

    /// Whether ``close()`` has closed the session. Read it only after `close()` returned.
    var isClosed: Bool { handle.isFinished }

    /// Runs `body` with the libpq handle on the connection's thread.
    func withHandle<T: Sendable>(_ body: @escaping @Sendable (LibPQConnection) throws -> T) async throws -> T {
        let handle = self.handle
        return try await thread.run { try body(handle) }
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        PostgresRows(result: try await withHandle { try $0.execute(query) })
    }

    /// Runs a statement and returns how many rows it touched.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query).affectedRows
    }

    /// Runs a prepared statement, preparing it on this session first if needed.
    @discardableResult
    public func query(_ statement: PostgresPreparedStatement, _ bindings: PostgresBindings) async throws -> PostgresRows
    {
        PostgresRows(result: try await withHandle { try $0.execute(statement, bindings) })
    }

    /// Runs SQL text that may hold several statements (a migration file), without parameters.
    public func executeScript(unsafeSQL sql: String) async throws {
        try await withHandle { try $0.executeScript(sql) }
    }

    /// Runs `body` in a transaction: `COMMIT` when it returns, `ROLLBACK` when it throws.
    public func withTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await executeScript(unsafeSQL: "BEGIN")
        let value: T
        do {
            value = try await body(self)
        } catch {
            do {
                try await executeScript(unsafeSQL: "ROLLBACK")
            } catch let rollbackError {
                logger.debug("ROLLBACK failed", metadata: ["postgres.error": "\(rollbackError)"])
            }
            throw error
        }
        // A statement that failed inside `body` aborts the transaction even if `body` caught the error; COMMIT
        // would then quietly roll back, so say so instead.
        if try await withHandle({ $0.isInFailedTransaction }) {
            try await executeScript(unsafeSQL: "ROLLBACK")
            throw PostgresError(
                kind: .invalidUsage, message: "a statement failed inside the transaction, so it was rolled back")
        }
        try await executeScript(unsafeSQL: "COMMIT")
        return value
    }

    /// Writes `rows` into `table` with `COPY … FROM STDIN (FORMAT binary)`, the fastest bulk insert.
    ///
    /// Binary COPY needs each value in its column's exact type: bind `Int32` for `integer`, `Int` for `bigint`.
    /// - Returns: the number of rows written.
    @discardableResult
    public func copy(_ rows: PostgresCopyRows, into table: String) async throws -> Int {
        let columns = rows.columns.map(quoteIdentifier).joined(separator: ", ")
        let sql = "COPY \(quoteIdentifier(table)) (\(columns)) FROM STDIN (FORMAT binary)"
        let data = rows.finishedData()
        return try await withHandle { try $0.copyIn(sql: sql, data: data) }
    }

    /// Whether the session can still be used; reads what the server sent meanwhile without blocking.
    public func checkAlive() async -> Bool {
        (try? await withHandle { $0.checkAlive() && $0.isIdle }) ?? false
    }

    /// The server process serving this session (for `pg_terminate_backend`, `pg_cancel_backend`).
    public func backendProcessID() async throws -> Int32 {
        try await withHandle { $0.backendProcessID }
    }
}
