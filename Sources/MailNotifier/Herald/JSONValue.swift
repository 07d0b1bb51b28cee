/// A JSON value for the free-form `data` object of a push (custom top-level payload keys), and of the
/// notification an interaction reports, which any sender may have filled with any JSON.
public enum JSONValue: Hashable, Sendable, Codable, ExpressibleByStringLiteral {
    case string(String)
    case int(Int)
    /// A number with a fraction, or too large for `Int`.
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(stringLiteral value: String) {
        self = .string(value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension JSONValue {
    /// A value of the generated client's free-form containers (`OpenAPIObjectContainer` and its kin): `nil`,
    /// `Bool`, an integer, `Double`, `String`, an array or an object of such values.
    init(openAPIValue value: (any Sendable)?) {
        switch value {
        case nil: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as [(any Sendable)?]: self = .array(value.map(JSONValue.init(openAPIValue:)))
        case let value as [String: (any Sendable)?]: self = .object(value.mapValues(JSONValue.init(openAPIValue:)))
        case let value?: self = .string(String(describing: value))
        }
    }

    /// The value as the generated client's free-form containers take it.
    var openAPIValue: (any Sendable)? {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .array(let values): values.map(\.openAPIValue)
        case .object(let members): members.mapValues(\.openAPIValue)
        case .null: nil
        }
    }
}
