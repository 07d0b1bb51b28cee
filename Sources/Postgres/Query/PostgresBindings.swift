/// The values bound to a statement's `$1 … $n` parameters, already in binary form.
///
/// Values never appear in descriptions: a `PostgresBindings` prints only how many values it holds.
public struct PostgresBindings: Sendable, CustomStringConvertible {
    private(set) var types: [PostgresType] = []
    private(set) var values: [[UInt8]?] = []

    public init() {}

    public var count: Int { values.count }

    public mutating func append(_ value: some PostgresEncodable) {
        var bytes: [UInt8] = []
        value.encode(into: &bytes)
        types.append(type(of: value).postgresType)
        values.append(bytes)
    }

    /// Appends `value`, or SQL NULL of `T`'s type for `nil`.
    public mutating func append<T: PostgresEncodable>(_ value: T?) {
        if let value {
            append(value)
        } else {
            types.append(T.postgresType)
            values.append(nil)
        }
    }

    public var description: String { "PostgresBindings(\(count) values)" }
}
