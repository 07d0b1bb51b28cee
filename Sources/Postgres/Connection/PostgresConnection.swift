public import Logging

/// One PostgreSQL session.
///
/// Every libpq call runs on the connection's own thread, never on Swift's cooperative pool; calls from several
/// tasks are queued and run one at a time. Get connections from a ``PostgresClient``; a connection lent to a closure
/// must not escape it.
///
/// A statement run under a task deadline (``PostgresClient/withWaitBudget(_:_:)``, an API request's budget) is
/// cancelled on the server, through `PQcancel`, when the deadline passes or the task is cancelled; it then fails with
/// SQLSTATE 57014 and the session stays usable. Without a deadline (the delivery engine) statements run to their end.
public final class PostgresConnection: Sendable {
    private let thread: DedicatedThread
    private let handle: LibPQConnection
    /// What cancelling this session's statements needs; `nil` when libpq could not provide it.
    private let cancelRequest: LibPQCancel?
    let logger: Logger

    private init(thread: DedicatedThread, handle: LibPQConnection, cancelRequest: LibPQCancel?, logger: Logger) {
        self.thread = thread
        self.handle = handle
        self.cancelRequest = cancelRequest
        self.logger = logger
    }

    /// Opens a session with `configuration`, and sets its ``PostgresConfiguration/statementTimeout``.
    public static func connect(configuration: PostgresConfiguration, logger: Logger) async throws -> PostgresConnection
    {
        let thread = DedicatedThread(name: "herald.postgres")
        let opened: (LibPQConnection, LibPQCancel?)
        do {
            let parameters = configuration.connectParameters
            opened = try await thread.run {
                let handle = try LibPQConnection(parameters: parameters)
                return (handle, handle.makeCancelRequest())
            }
        } catch {
            thread.stop()
            throw error
        }
        let connection = PostgresConnection(thread: thread, handle: opened.0, cancelRequest: opened.1, logger: logger)
        if let timeout = configuration.statementTimeout {
            // In milliseconds, the setting's unit; a shorter timeout than 1 ms would be 0, which turns it off.
            let milliseconds = String(max(1, Int((timeout / .milliseconds(1)).rounded(.up))))
            // A failure here closes the session through its deinit.
            try await connection.query("SELECT set_config('statement_timeout', \(milliseconds), false)")
        }
        return connection
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

    /// Runs one statement's job with the handle, cancellable under a task deadline (see the type's summary).
    ///
    /// Transaction control and health checks use ``withHandle(_:)`` instead: a `ROLLBACK` after a cancelled
    /// statement must run even though the task was cancelled.
    private func withStatement<T: Sendable>(_ body: @escaping @Sendable (LibPQConnection) throws -> T) async throws
        -> T
    {
        guard let deadline = PoolDeadline.current, let cancelRequest else { return try await withHandle(body) }
        guard ContinuousClock.now < deadline else {
            throw PostgresError(
                kind: .deadlineExceeded, message: "the task's deadline passed before the statement could start")
        }
        try Task.checkCancellation()
        let cancellation = StatementCancellation(request: cancelRequest, logger: logger)
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { cancellation.cancel() }
        }
        let result: Result<T, any Error>
        do {
            result = .success(
                try await withTaskCancellationHandler {
                    try await withHandle(body)
                } onCancel: {
                    cancellation.cancel()
                })
        } catch {
            result = .failure(error)
        }
        timer.cancel()
        await cancellation.finish()
        return try result.get()
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        PostgresRows(result: try await withStatement { try $0.execute(query) })
    }

    /// Runs a statement and returns how many rows it touched.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query).affectedRows
    }

    /// Runs `statement`, preparing it on this session first if needed, and decodes its rows.
    public func query<Statement: PostgresStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        try await run(statement).map(statement.decodeRow)
    }

    /// Runs `statement`, preparing it on this session first if needed, and returns how many rows it touched.
    @discardableResult
    public func execute(_ statement: some PostgresStatement) async throws -> Int {
        try await run(statement).affectedRows
    }

    private func run<Statement: PostgresStatement>(_ statement: Statement) async throws -> PostgresRows {
        let (name, sql, bindings) = (Statement.name, Statement.sql, statement.makeBindings())
        return PostgresRows(result: try await withStatement { try $0.execute(prepared: name, sql: sql, bindings) })
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
        return try await withStatement { try $0.copyIn(sql: sql, data: data) }
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
