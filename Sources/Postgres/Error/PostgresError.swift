/// Any failure of the `Postgres` module.
///
/// `description` is safe to log: for a server error it names only the SQLSTATE and the constraint, since the
/// server's message can quote a value (`invalid input syntax for type uuid: "…"`). `debugDescription` adds the
/// message, detail, hint and the query text; bound values appear nowhere.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached, refused the login, or the connection string is invalid.
        case connectionFailed
        /// The connection broke while in use, or was closed.
        case connectionClosed
        /// The server rejected a statement; `sqlState` says why.
        case server
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// No pooled connection became free within the acquire timeout.
        case poolTimeout
        /// The pool or listener has been shut down.
        case shutDown
        /// The task's deadline (``PostgresClient/withWaitBudget(_:_:)``) passed before the statement could start.
        case deadlineExceeded
        /// The caller misused the API (an invalid channel name, a COPY row of the wrong width, …).
        case invalidUsage
    }

    public var kind: Kind
    public var message: String
    public var sqlState: SQLState?
    /// The server's DETAIL and HINT lines, which may quote data values: only in `debugDescription`.
    public var detail: String?
    public var hint: String?
    /// The constraint a violation names, such as `users_email_key`.
    public var constraint: String?
    /// 1-based character offset into `query` where the server located the error.
    public var position: Int?
    /// The SQL text (never the bound values).
    public var query: String?

    public init(
        kind: Kind,
        message: String,
        sqlState: SQLState? = nil,
        detail: String? = nil,
        hint: String? = nil,
        constraint: String? = nil,
        position: Int? = nil,
        query: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.position = position
        self.query = query
    }

    public var description: String {
        switch (kind, sqlState) {
        case (.server, let state?): "PostgreSQL error \(state)" + (constraint.map { " (constraint \($0))" } ?? "")
        default: "PostgreSQL \(kind): \(message)"
        }
    }

    public var debugDescription: String {
        var text = description
        if kind == .server { text += ": \(message)" }
        if let detail { text += "\nDETAIL: \(detail)" }
        if let hint { text += "\nHINT: \(hint)" }
        if let query { text += "\nQUERY: \(query)" }
        return text
    }

    /// The statement was cancelled, or never started, because it ran out of time (`statement_timeout`, the task's
    /// deadline) or its task was cancelled. The session stays usable.
    public var isCanceled: Bool {
        kind == .deadlineExceeded || sqlState == .queryCanceled
    }

    /// The connection that produced this error cannot be used again.
    public var isConnectionFailure: Bool {
        switch kind {
        case .connectionFailed, .connectionClosed: true
        case .server:
            if let sqlState, sqlState == .adminShutdown || sqlState.classCode == "08" { true } else { false }
        default: false
        }
    }
}
