/// Something values are written into in column or parameter order: ``PostgresBindings`` for a statement,
/// ``PostgresCopyRows/Row`` for a COPY row. Code that produces a row once can feed either.
public protocol PostgresValueWriter {
    mutating func append(_ value: some PostgresEncodable)
    /// Appends `value`, or SQL NULL for `nil`.
    mutating func append<T: PostgresEncodable>(_ value: T?)
}

extension PostgresBindings: PostgresValueWriter {}
extension PostgresCopyRows.Row: PostgresValueWriter {}
