/// A `timestamptz` exactly as PostgreSQL stores it: microseconds since 2000-01-01 00:00:00 UTC, with its two
/// infinities. A value read and bound again compares equal to the stored one, which a `Date` (a `Double` of seconds
/// since 2001) does not promise.
public struct PostgresTimestamp: Comparable, Hashable, Sendable {
    public var microsecondsSince2000: Int64

    public init(microsecondsSince2000: Int64) {
        self.microsecondsSince2000 = microsecondsSince2000
    }

    /// `-infinity`: before every timestamp.
    public static let negativeInfinity = PostgresTimestamp(microsecondsSince2000: .min)

    public static func < (lhs: PostgresTimestamp, rhs: PostgresTimestamp) -> Bool {
        lhs.microsecondsSince2000 < rhs.microsecondsSince2000
    }
}

extension PostgresTimestamp: PostgresArrayElement {
    public static var postgresType: PostgresType { .timestamptz }
    public static var postgresArrayType: PostgresType { .timestamptzArray }

    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(microsecondsSince2000) }

    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        guard type == .timestamptz || type == .timestamp else { throw decodingMismatch(Self.self, type) }
        var cursor = BinaryCursor(bytes)
        microsecondsSince2000 = try cursor.read(Int64.self)
    }
}
