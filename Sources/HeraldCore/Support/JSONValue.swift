public import APNsCore

/// Herald's JSON documents (stored `jsonb`, request bodies, payloads) use the APNs module's value type, so a
/// rendered payload reaches the APNs client without conversion.
public typealias JSONValue = APNsCore.JSONValue

extension JSONValue {
    /// The member `key` of an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, else `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, else `nil`.
    public var intValue: Int? {
        if case .int(let value) = self { value } else { nil }
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
