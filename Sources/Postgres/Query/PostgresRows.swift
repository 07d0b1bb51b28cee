/// The rows a query returned, read lazily from libpq's result.
public struct PostgresRows: Sendable, RandomAccessCollection {
    let result: PostgresResult?

    init(result: PostgresResult?) { self.result = result }

    public var startIndex: Int { 0 }
    public var endIndex: Int { result?.rowCount ?? 0 }
    public subscript(position: Int) -> PostgresRow { PostgresRow(result: result!, index: position) }

    /// The column names, in order.
    public var columns: [String] { result?.columnNames ?? [] }

    /// Rows touched by an INSERT, UPDATE, DELETE or COPY.
    public var affectedRows: Int { result?.affectedRows ?? 0 }

    /// Decodes every row as a tuple of the given types, one per column.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> [(repeat each T)] {
        try map { try $0.decode(types) }
    }

    /// The single value of a one-row, one-column answer (`SELECT count(*) …`).
    public func scalar<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        guard let row = first else {
            throw PostgresError(kind: .decoding, message: "expected one row, got none")
        }
        return try row.decode(column: 0, as: type)
    }
}

/// One row of ``PostgresRows``.
public struct PostgresRow: Sendable {
    let result: PostgresResult
    let index: Int

    /// Decodes the leading columns as a tuple: `let (id, name) = try row.decode((UUID, String?).self)`.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> (repeat each T) {
        var column = 0
        func next<V: PostgresDecodable>(_ type: V.Type) throws -> V {
            defer { column += 1 }
            return try decode(column: column, as: type)
        }
        return (repeat try next((each T).self))
    }

    /// Decodes the column named `name`.
    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type) throws -> T {
        guard let column = result.columnNames.firstIndex(of: name) else {
            throw PostgresError(kind: .decoding, message: "no column named \(name)")
        }
        return try decode(column: column, as: type)
    }

    /// Decodes the column at `column` (0-based).
    public func decode<T: PostgresDecodable>(column: Int, as type: T.Type) throws -> T {
        guard column < result.columnCount else {
            throw PostgresError(
                kind: .decoding, message: "row has \(result.columnCount) columns; column \(column) does not exist")
        }
        let columnType = result.columnTypes[column]
        do {
            return try result.withCell(row: index, column: column) { bytes in
                guard let bytes else {
                    guard let null = T.postgresNull else {
                        throw PostgresError(kind: .decoding, message: "is NULL; decode it as an Optional")
                    }
                    return null
                }
                return try T(postgresBytes: bytes, type: columnType)
            }
        } catch var error as PostgresError {
            error.message = "column \(result.columnNames[column]): \(error.message)"
            throw error
        }
    }
}
