import Postgres

/// Tells a value the database refused from a failure of the database, so the API can answer 422 instead of 500 for
/// input that its own checks let through.
public enum DatabaseInput {
    /// Whether `error` is PostgreSQL refusing a value: SQLSTATE class 22, "data exception" (a NUL byte in text, a
    /// number beyond its column's range, text too long for its column, a malformed date).
    public static func isRefusedValue(_ error: any Error) -> Bool {
        (error as? PostgresError)?.sqlState?.classCode == "22"
    }
}
