import Foundation

/// A SQL statement with its bound parameters.
///
/// String interpolation binds: `"SELECT * FROM users WHERE id = \(id)"` sends `id` as parameter `$1`, never as
/// SQL text. SQL built at run time has to say so with ``init(unsafeSQL:bindings:)`` or `\(unescaped:)`.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var sql: String
    public var bindings: PostgresBindings

    /// A statement from SQL text the caller vouches for; values still travel in `bindings`.
    public init(unsafeSQL sql: String, bindings: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.bindings = bindings
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, bindings: stringInterpolation.bindings)
    }

    public var description: String { sql }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings = PostgresBindings()

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T?) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// Inserts `text` into the SQL as it is. Only for fragments the program itself chose, never for input.
        public mutating func appendInterpolation(unescaped text: String) { sql += text }

        /// Inserts `name` as a quoted identifier.
        public mutating func appendInterpolation(identifier name: String) { sql += quoteIdentifier(name) }
    }
}

/// Quotes an identifier for SQL text, doubling embedded quotes.
func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
