public import Foundation

/// A Swift value that can be read from a result column in PostgreSQL's binary format.
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value.
    ///
    /// - Parameters:
    ///   - bytes: the column's binary value, borrowed from the result; do not let it escape.
    ///   - type: the column's PostgreSQL type.
    /// - Throws: ``PostgresError`` of kind `.decoding` when the type does not fit.
    init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws

    /// The value to use for SQL NULL, or `nil` when NULL is an error for this type.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        self = .some(try Wrapped(postgresBytes: bytes, type: type))
    }

    public static var postgresNull: Self? { .some(.none) }
}

func decodingMismatch(_ swiftType: Any.Type, _ type: PostgresType) -> PostgresError {
    PostgresError(kind: .decoding, message: "cannot decode a PostgreSQL \(type) value as \(swiftType)")
}

extension String: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        if type.isText || type == .json {
            self = String(decoding: bytes, as: UTF8.self)
        } else if type == .jsonb, bytes.first == 1 {
            self = String(decoding: bytes.dropFirst(), as: UTF8.self)
        } else {
            throw decodingMismatch(String.self, type)
        }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        guard type == .bool, bytes.count == 1 else { throw decodingMismatch(Bool.self, type) }
        self = bytes[0] != 0
    }
}

extension FixedWidthInteger where Self: PostgresDecodable {
    /// Reads int2, int4 or int8 columns, refusing values this type cannot hold.
    fileprivate static func decodeInteger(_ bytes: UnsafeRawBufferPointer, type: PostgresType) throws -> Self {
        var cursor = BinaryCursor(bytes)
        let wide: Int64
        switch type {
        case .int2: wide = Int64(try cursor.read(Int16.self))
        case .int4: wide = Int64(try cursor.read(Int32.self))
        case .int8: wide = try cursor.read(Int64.self)
        case .oidType: wide = Int64(try cursor.read(UInt32.self))
        default: throw decodingMismatch(Self.self, type)
        }
        guard let value = Self(exactly: wide) else {
            throw PostgresError(kind: .decoding, message: "\(type) value \(wide) does not fit in \(Self.self)")
        }
        return value
    }
}

extension Int16: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        self = try Self.decodeInteger(bytes, type: type)
    }
}

extension Int32: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        self = try Self.decodeInteger(bytes, type: type)
    }
}

extension Int64: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        self = try Self.decodeInteger(bytes, type: type)
    }
}

extension Int: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        self = try Self.decodeInteger(bytes, type: type)
    }
}

extension Double: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        var cursor = BinaryCursor(bytes)
        switch type {
        case .float8: self = Double(bitPattern: try cursor.read(UInt64.self))
        case .float4: self = Double(Float(bitPattern: try cursor.read(UInt32.self)))
        case .int2, .int4, .int8: self = Double(try Int64.decodeInteger(bytes, type: type))
        default: throw decodingMismatch(Double.self, type)
        }
    }
}

extension UUID: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        guard type == .uuid, bytes.count == 16 else { throw decodingMismatch(UUID.self, type) }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: bytes) }
        self = UUID(uuid: raw)
    }
}

extension Data: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        guard type == .bytea else { throw decodingMismatch(Data.self, type) }
        self = Data(bytes)
    }
}

extension Date: PostgresDecodable {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        guard type == .timestamptz || type == .timestamp else { throw decodingMismatch(Date.self, type) }
        var cursor = BinaryCursor(bytes)
        let microseconds = try cursor.read(Int64.self)
        switch microseconds {
        case .max: self = .distantFuture
        case .min: self = .distantPast
        default: self = Date(timeIntervalSince1970: postgresEpochOffset + Double(microseconds) / 1_000_000)
        }
    }
}
