public import Foundation

/// An element type of a one-dimensional PostgreSQL array.
public protocol PostgresArrayElement: PostgresEncodable, PostgresDecodable {
    /// The array type whose elements have this type (`text[]` for `String`).
    static var postgresArrayType: PostgresType { get }
}

extension String: PostgresArrayElement { public static var postgresArrayType: PostgresType { .textArray } }
extension UUID: PostgresArrayElement { public static var postgresArrayType: PostgresType { .uuidArray } }
extension Int: PostgresArrayElement { public static var postgresArrayType: PostgresType { .int8Array } }
extension Int64: PostgresArrayElement { public static var postgresArrayType: PostgresType { .int8Array } }
extension Int32: PostgresArrayElement { public static var postgresArrayType: PostgresType { .int4Array } }
extension Int16: PostgresArrayElement { public static var postgresArrayType: PostgresType { .int2Array } }
extension Bool: PostgresArrayElement { public static var postgresArrayType: PostgresType { .boolArray } }
extension Double: PostgresArrayElement { public static var postgresArrayType: PostgresType { .float8Array } }
extension Date: PostgresArrayElement { public static var postgresArrayType: PostgresType { .timestamptzArray } }
extension PostgresJSON: PostgresArrayElement { public static var postgresArrayType: PostgresType { .jsonbArray } }

/// Binary array layout: dimensions, has-null flag, element type, then per dimension its length and lower bound,
/// then each element as a 32-bit length (-1 for NULL) and its bytes.
extension Array: PostgresEncodable where Element: PostgresArrayElement {
    public static var postgresType: PostgresType { Element.postgresArrayType }

    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(Int32(isEmpty ? 0 : 1))
        buffer.appendBigEndian(Int32(0))
        buffer.appendBigEndian(Element.postgresType.oid)
        if !isEmpty {
            buffer.appendBigEndian(Int32(count))
            buffer.appendBigEndian(Int32(1))
        }
        var element: [UInt8] = []
        for value in self {
            element.removeAll(keepingCapacity: true)
            value.encode(into: &element)
            buffer.appendBigEndian(Int32(element.count))
            buffer.append(contentsOf: element)
        }
    }
}

extension Array: PostgresDecodable where Element: PostgresArrayElement {
    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        var cursor = BinaryCursor(bytes)
        let dimensions = try cursor.read(Int32.self)
        _ = try cursor.read(Int32.self)  // has-null flag: each element's length says it again
        let elementType = PostgresType(oid: try cursor.read(UInt32.self))
        guard dimensions <= 1 else {
            throw PostgresError(
                kind: .decoding, message: "cannot decode a \(dimensions)-dimensional array as \(Self.self)")
        }
        guard dimensions == 1 else {
            self = []
            return
        }
        let count = try cursor.read(Int32.self)
        // Every element takes at least its 4-byte length: a larger count is a corrupt or mistyped value.
        guard count >= 0, Int(count) <= cursor.remaining / 4 else {
            throw PostgresError(kind: .decoding, message: "array claims \(count) elements; the value is not an array")
        }
        _ = try cursor.read(Int32.self)  // lower bound: PostgreSQL's index base does not matter to a Swift array
        var elements: [Element] = []
        let elementCount = Int(Swift.max(count, 0))
        elements.reserveCapacity(elementCount)
        for _ in 0..<elementCount {
            let length = try cursor.read(Int32.self)
            guard length >= 0 else {
                throw PostgresError(kind: .decoding, message: "array element is NULL; \(Element.self) cannot hold NULL")
            }
            elements.append(try Element(postgresBytes: try cursor.readBytes(Int(length)), type: elementType))
        }
        self = elements
    }
}
