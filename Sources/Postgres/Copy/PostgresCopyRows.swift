/// Rows for ``PostgresConnection/copy(_:into:)``, encoded as they are appended in PostgreSQL's binary COPY format.
public struct PostgresCopyRows: Sendable {
    public let columns: [String]
    public private(set) var count = 0
    private var data: [UInt8]

    /// The binary COPY header: signature, flags, header-extension length.
    private static let header: [UInt8] =
        Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    public init(columns: [String], reservingCapacity bytes: Int = 0) {
        self.columns = columns
        data = Self.header
        data.reserveCapacity(bytes)
    }

    /// Appends one row; `values` holds one value per column, in column order.
    public mutating func append(_ values: PostgresBindings) throws {
        guard values.count == columns.count else {
            throw PostgresError(
                kind: .invalidUsage, message: "COPY row has \(values.count) values for \(columns.count) columns")
        }
        data.appendBigEndian(Int16(values.count))
        for value in values.values {
            if let value {
                data.appendBigEndian(Int32(value.count))
                data.append(contentsOf: value)
            } else {
                data.appendBigEndian(Int32(-1))
            }
        }
        count += 1
    }

    /// The encoded rows followed by the end-of-data marker.
    func finishedData() -> [UInt8] {
        var finished = data
        finished.appendBigEndian(Int16(-1))
        return finished
    }
}
