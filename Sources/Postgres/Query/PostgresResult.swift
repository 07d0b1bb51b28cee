internal import CLibPQ

/// Owns one `PGresult` and frees it when the last row referring to it is gone.
///
/// A `PGresult` does not change after libpq hands it over and is independent of its connection, so reading it
/// from any thread is safe.
final class PostgresResult: @unchecked Sendable {
    let pointer: OpaquePointer
    let rowCount: Int
    let columnCount: Int
    let columnNames: [String]
    let columnTypes: [PostgresType]

    /// Takes ownership of `pointer`: it is freed with `PQclear` in `deinit`.
    init(takingOwnership pointer: OpaquePointer) {
        self.pointer = pointer
        rowCount = Int(PQntuples(pointer))
        columnCount = Int(PQnfields(pointer))
        // COPY results report columns without names.
        columnNames = (0..<Int32(columnCount)).map { PQfname(pointer, $0).map { String(cString: $0) } ?? "" }
        columnTypes = (0..<Int32(columnCount)).map { PostgresType(oid: PQftype(pointer, $0)) }
    }

    deinit { PQclear(pointer) }

    /// The number of rows an INSERT, UPDATE, DELETE, COPY … touched, from the command tag.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(pointer))) ?? 0 }

    /// Lends the binary value of a cell to `body`, or `nil` for SQL NULL. The pointer must not escape `body`.
    func withCell<T>(row: Int, column: Int, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        let r = Int32(row)
        let c = Int32(column)
        if PQgetisnull(pointer, r, c) == 1 { return try body(nil) }
        let length = Int(PQgetlength(pointer, r, c))
        return try body(UnsafeRawBufferPointer(start: PQgetvalue(pointer, r, c), count: length))
    }
}
