/// The values bound to a statement's `$1 … $n` parameters, already in binary form.
///
/// Values never appear in descriptions: a `PostgresBindings` prints only how many values it holds.
public struct PostgresBindings: Sendable, CustomStringConvertible {
    private(set) var types: [PostgresType] = []
    private(set) var values: [[UInt8]?] = []

    public init() {}

    /// Binds `value(parameter)` for each case of `Parameter`, in the cases' order: the order their placeholders
    /// number them in, so each value lands on its own `$n`.
    public init<Parameter: PostgresParameter>(
        _: Parameter.Type, _ value: (Parameter) throws -> Value
    ) rethrows {
        for parameter in Parameter.allCases { append(try value(parameter)) }
    }

    public var count: Int { values.count }

    public mutating func append(_ value: some PostgresEncodable) {
        append(Value(value))
    }

    /// Appends `value`, or SQL NULL of `T`'s type for `nil`.
    public mutating func append<T: PostgresEncodable>(_ value: T?) {
        append(Value(value))
    }

    private mutating func append(_ value: Value) {
        types.append(value.type)
        values.append(value.bytes)
    }

    public var description: String { "PostgresBindings(\(count) values)" }

    /// One parameter's value in binary form, with its type.
    public struct Value: Sendable {
        let type: PostgresType
        let bytes: [UInt8]?

        private init(type: PostgresType, bytes: [UInt8]?) {
            self.type = type
            self.bytes = bytes
        }

        public init(_ value: some PostgresEncodable) {
            var bytes: [UInt8] = []
            value.encode(into: &bytes)
            self.init(type: Swift.type(of: value).postgresType, bytes: bytes)
        }

        /// `value`, or SQL NULL of `T`'s type for `nil`.
        public init<T: PostgresEncodable>(_ value: T?) {
            if let value {
                self.init(value)
            } else {
                self.init(type: T.postgresType, bytes: nil)
            }
        }
    }
}
