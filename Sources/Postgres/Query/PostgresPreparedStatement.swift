/// A named statement that each pooled connection prepares once, the first time it runs it.
///
/// Declare it once (a `static let`) and run it on any connection with ``PostgresConnection/query(_:_:)``; the
/// parameter types are taken from the first bindings a connection sees, so bind the same Swift types every time.
public struct PostgresPreparedStatement: Sendable {
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}
