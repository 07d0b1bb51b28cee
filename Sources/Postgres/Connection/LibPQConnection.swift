internal import CLibPQ
import Foundation
import Glibc

/// Owns one `PGconn`. Not thread-safe: its ``PostgresConnection`` uses it from one ``DedicatedThread`` only.
final class LibPQConnection: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// Set by ``finish()``; the pointer is freed and must not be used again.
    private(set) var isFinished = false
    /// The prepared statements this session already knows, by name: their SQL and parameter types.
    private var prepared: [String: (sql: String, types: [Oid])] = [:]

    /// Opens a blocking connection.
    ///
    /// - Throws: ``PostgresError`` `.connectionFailed` with libpq's message (which never contains the password).
    init(parameters: [(String, String)]) throws {
        // "Note that these functions will always return a non-null object pointer, unless perhaps there is too little
        // memory even to allocate the PGconn object" and "you should call PQfinish to free the memory used by the
        // PGconn object ... even if the server connection attempt fails" (libpq manual, 34.1).
        let pointer = withCStringArray(parameters.map(\.0)) { keywords in
            withCStringArray(parameters.map(\.1)) { values in
                // expand_dbname = 1: the `dbname` value may be a URL or key=value string, expanded in place.
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let pointer else {
            throw PostgresError(kind: .connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(pointer) == CONNECTION_OK else {
            let message = Self.message(of: pointer)
            PQfinish(pointer)
            throw PostgresError(kind: .connectionFailed, message: message)
        }
        // libpq prints notices (and the server's goodbye to a terminated session) on stderr by default; errors
        // that matter reach callers as thrown errors instead.
        PQsetNoticeReceiver(pointer, { _, _ in }, nil)
        self.pointer = pointer
    }

    deinit {
        if !isFinished { PQfinish(pointer) }
    }

    /// Closes the session and frees the handle now, rather than when the last reference goes. Call it last.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        PQfinish(pointer)
    }

    var isBroken: Bool { PQstatus(pointer) != CONNECTION_OK }

    var isIdle: Bool { PQtransactionStatus(pointer) == PQTRANS_IDLE }

    var isInFailedTransaction: Bool { PQtransactionStatus(pointer) == PQTRANS_INERROR }

    var backendProcessID: Int32 { PQbackendPID(pointer) }

    var socket: Int32 { PQsocket(pointer) }

    /// What cancelling this session's statements from another thread needs; `nil` when libpq cannot provide it.
    func makeCancelRequest() -> LibPQCancel? { LibPQCancel(connection: pointer) }

    // MARK: Statements

    /// Runs one statement with binary parameters and binary results.
    func execute(_ query: PostgresQuery) throws -> PostgresResult {
        let result = withParameters(query.bindings) { count, types, values, lengths, formats in
            PQexecParams(pointer, query.sql, count, types, values, lengths, formats, 1)
        }
        return try check(result, query: query.sql)
    }

    /// Runs the statement prepared as `name`, preparing it from `sql` on this session the first time.
    func execute(prepared name: String, sql: String, _ bindings: PostgresBindings) throws -> PostgresResult {
        let types = bindings.types.map(\.oid)
        if let known = prepared[name] {
            guard known.sql == sql, known.types == types else {
                throw PostgresError(
                    kind: .invalidUsage,
                    message: "prepared statement \(name) was first used with other SQL or parameter types",
                    query: sql)
            }
        } else {
            _ = try check(PQprepare(pointer, name, sql, Int32(types.count), types), query: sql)
            prepared[name] = (sql, types)
        }
        let result = withParameters(bindings) { count, _, values, lengths, formats in
            PQexecPrepared(pointer, name, count, values, lengths, formats, 1)
        }
        return try check(result, query: sql)
    }

    /// Runs SQL text that may hold several statements, with the simple-query protocol and no parameters.
    func executeScript(_ sql: String) throws {
        _ = try check(PQexec(pointer, sql), query: sql)
    }

    // MARK: COPY

    /// Streams `data` (PostgreSQL's binary COPY format) into `COPY … FROM STDIN`.
    func copyIn(sql: String, data: [UInt8]) throws -> Int {
        guard let start = PQexec(pointer, sql) else { throw connectionError() }
        let startStatus = PQresultStatus(start)
        if startStatus != PGRES_COPY_IN {
            _ = try check(start, query: sql)
            throw PostgresError(kind: .invalidUsage, message: "statement did not start COPY FROM STDIN", query: sql)
        }
        PQclear(start)
        let chunkSize = 1 << 20
        var offset = 0
        var sendFailed = false
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            // In blocking mode PQputCopyData returns 1 once the data is queued, -1 on failure.
            let sent = data[offset..<end].withUnsafeBytes {
                PQputCopyData(pointer, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
            }
            if sent != 1 {
                sendFailed = true
                break
            }
            offset = end
        }
        if PQputCopyEnd(pointer, sendFailed ? "client failed to send COPY data" : nil) != 1 {
            throw connectionError()
        }
        var affected = 0
        var firstError: PostgresError?
        while let result = PQgetResult(pointer) {
            do {
                affected = try check(result, query: sql).affectedRows
            } catch let error as PostgresError {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        if sendFailed { throw connectionError() }
        return affected
    }

    // MARK: Health and notifications

    /// Whether the idle session is still usable: reads anything the server sent meanwhile (a termination notice,
    /// a closed socket) without blocking.
    func checkAlive() -> Bool {
        guard !isBroken else { return false }
        // A terminated backend sends an error and then closes the socket; reading may take more than one call to
        // see both, so keep reading while data is waiting.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            if PQconsumeInput(pointer) == 0 { return false }
            drainNotifications { _ in }
        }
        return !isBroken
    }

    /// Reads what has arrived on the socket; `false` when the connection broke.
    func consumeInput() -> Bool { PQconsumeInput(pointer) == 1 && !isBroken }

    /// Hands every queued notification to `body`.
    func drainNotifications(_ body: (PostgresNotification) -> Void) {
        while let notify = PQnotifies(pointer) {
            let note = notify.pointee
            body(
                PostgresNotification(
                    channel: String(cString: note.relname),
                    payload: String(cString: note.extra),
                    processID: note.be_pid))
            PQfreemem(notify)
        }
    }

    // MARK: Helpers

    private func withParameters(
        _ bindings: PostgresBindings,
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        )
            -> OpaquePointer?
    ) -> OpaquePointer? {
        let types = bindings.types.map(\.oid)
        let lengths = bindings.values.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: bindings.count)
        // Each value is copied into memory that stays put for the duration of the call.
        let buffers: [UnsafeMutableRawBufferPointer?] = bindings.values.map { value in
            guard let value else { return nil }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(value.count, 1), alignment: 1)
            buffer.copyBytes(from: value)
            return buffer
        }
        defer { buffers.forEach { $0?.deallocate() } }
        let pointers: [UnsafePointer<CChar>?] = buffers.map {
            $0.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        return pointers.withUnsafeBufferPointer { values in
            body(Int32(bindings.count), types, values.baseAddress, lengths, formats)
        }
    }

    /// Turns a result into ``PostgresResult`` or a thrown ``PostgresError``; always takes ownership of `result`.
    private func check(_ result: OpaquePointer?, query: String) throws -> PostgresResult {
        guard let result else { throw connectionError() }
        let owned = PostgresResult(takingOwnership: result)
        switch PQresultStatus(owned.pointer) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return owned
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy()
            throw PostgresError(
                kind: .invalidUsage, message: "COPY runs through copy(_:into:) only", query: query)
        default:
            throw serverError(owned.pointer, query: query)
        }
    }

    /// Leaves a COPY a plain statement started, so the session can be used again.
    private func abandonCopy() {
        _ = PQputCopyEnd(pointer, "COPY is not supported here")
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(pointer, &buffer, 0) > 0 {
            PQfreemem(buffer)
        }
        while let result = PQgetResult(pointer) { PQclear(result) }
    }

    private func serverError(_ result: OpaquePointer, query: String) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let sqlState = field("C").map(SQLState.init)
        let message = field("M") ?? Self.message(of: pointer)
        return PostgresError(
            kind: isBroken && sqlState == nil ? .connectionClosed : .server,
            message: message,
            sqlState: sqlState,
            detail: field("D"),
            hint: field("H"),
            constraint: field("n"),
            position: field("P").flatMap { Int($0) },
            query: query)
    }

    private func connectionError() -> PostgresError {
        PostgresError(kind: isBroken ? .connectionClosed : .server, message: Self.message(of: pointer))
    }

    private static func message(of pointer: OpaquePointer) -> String {
        String(cString: PQerrorMessage(pointer)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Lends `strings` to C as a NULL-terminated array of C strings; the pointers must not escape `body`.
private func withCStringArray<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers = duplicates.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
