public import Foundation

/// A Swift value that can be bound to a query parameter, in PostgreSQL's binary format.
public protocol PostgresEncodable: Sendable {
    /// The PostgreSQL type the value is sent as.
    static var postgresType: PostgresType { get }
    /// Appends the binary form of the value (without a length prefix).
    func encode(into buffer: inout [UInt8])
}

extension String: PostgresEncodable {
    public static var postgresType: PostgresType { .text }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
}

extension Bool: PostgresEncodable {
    public static var postgresType: PostgresType { .bool }
    public func encode(into buffer: inout [UInt8]) { buffer.append(self ? 1 : 0) }
}

extension Int16: PostgresEncodable {
    public static var postgresType: PostgresType { .int2 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Int32: PostgresEncodable {
    public static var postgresType: PostgresType { .int4 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Int64: PostgresEncodable {
    public static var postgresType: PostgresType { .int8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Int: PostgresEncodable {
    public static var postgresType: PostgresType { .int8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(Int64(self)) }
}

extension Double: PostgresEncodable {
    public static var postgresType: PostgresType { .float8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(bitPattern) }
}

extension UUID: PostgresEncodable {
    public static var postgresType: PostgresType { .uuid }
    public func encode(into buffer: inout [UInt8]) {
        withUnsafeBytes(of: uuid) { buffer.append(contentsOf: $0) }
    }
}

extension Data: PostgresEncodable {
    public static var postgresType: PostgresType { .bytea }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: self) }
}

/// PostgreSQL counts timestamps in microseconds from 2000-01-01 00:00:00 UTC.
let postgresEpochOffset: TimeInterval = 946_684_800

extension Date: PostgresEncodable {
    public static var postgresType: PostgresType { .timestamptz }
    public func encode(into buffer: inout [UInt8]) {
        // Out-of-range dates become PostgreSQL's ±infinity; a NaN interval (which no real date has) becomes -infinity.
        let microseconds = ((timeIntervalSince1970 - postgresEpochOffset) * 1_000_000).rounded()
        let clamped =
            microseconds.isNaN || microseconds <= Double(Int64.min)
            ? Int64.min : microseconds >= Double(Int64.max) ? Int64.max : Int64(microseconds)
        buffer.appendBigEndian(clamped)
    }
}
