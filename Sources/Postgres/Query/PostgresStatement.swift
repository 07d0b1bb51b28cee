/// A statement as a type: its SQL, the values it binds and how it reads a row live together, so the `$n` a value is
/// bound to and the column a field is read from are written down once, beside the SQL that uses them.
///
/// Each session prepares it under ``name`` the first time it runs there, so a statement that runs often is parsed and
/// planned once per session rather than once per call. The parameter types are taken from the first bindings a
/// session sees: bind the same Swift types every time. Run it with ``PostgresConnection/query(_:)`` for its rows or
/// ``PostgresConnection/execute(_:)`` for the number of rows it touched (or the same on ``PostgresClient``).
///
/// ``PostgresParameter`` numbers the parameters from one list, and ``PostgresColumn`` places the result columns.
public protocol PostgresStatement: Sendable {
    /// What one result row becomes.
    associatedtype Row

    /// The name sessions prepare it under; no two statements of a program may share one.
    static var name: String { get }

    static var sql: String { get }

    /// This statement's values, in the order of their `$n`.
    func makeBindings() -> PostgresBindings

    func decodeRow(_ row: PostgresRow) throws -> Row
}

extension PostgresStatement where Row == Void {
    /// A statement that returns no rows has nothing to read.
    public func decodeRow(_ row: PostgresRow) throws {}
}
