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

    /// Appends one row, written by `build` one value per column in column order, straight into the buffer.
    ///
    /// - Throws: ``PostgresError`` `.invalidUsage` when `build` writes more or fewer values than there are columns
    ///   (the row is then not added), or what `build` throws.
    public mutating func appendRow(_ build: (inout Row) throws -> Void) throws {
        var row = Row(data: [])
        swap(&row.data, &data)  // hand the buffer over without copying it
        let rowStart = row.data.count
        row.data.appendBigEndian(Int16(columns.count))
        defer { swap(&row.data, &data) }
        do {
            try build(&row)
        } catch {
            row.data.removeSubrange(rowStart...)
            throw error
        }
        guard row.valueCount == columns.count else {
            row.data.removeSubrange(rowStart...)
            throw PostgresError(
                kind: .invalidUsage, message: "COPY row has \(row.valueCount) values for \(columns.count) columns")
        }
        count += 1
    }

    /// Appends one row from `values`, one per column in column order.
    public mutating func append(_ values: PostgresBindings) throws {
        try appendRow { row in
            for value in values.values { row.appendEncoded(value) }
        }
    }

    /// The encoded rows followed by the end-of-data marker.
    func finishedData() -> [UInt8] {
        var finished = data
        finished.appendBigEndian(Int16(-1))
        return finished
    }

    /// One row being written: each value as a 32-bit length (-1 for NULL) and its binary form.
    public struct Row {
        fileprivate var data: [UInt8]
        fileprivate var valueCount = 0

        public mutating func append(_ value: some PostgresEncodable) {
            let lengthOffset = data.count
            data.appendBigEndian(Int32(0))
            value.encode(into: &data)
            let length = Int32(data.count - lengthOffset - 4).bigEndian
            Swift.withUnsafeBytes(of: length) { bytes in
                for (offset, byte) in bytes.enumerated() { data[lengthOffset + offset] = byte }
            }
            valueCount += 1
        }

        /// Appends `value`, or NULL for `nil`.
        public mutating func append<T: PostgresEncodable>(_ value: T?) {
            if let value {
                append(value)
            } else {
                data.appendBigEndian(Int32(-1))
                valueCount += 1
            }
        }

        fileprivate mutating func appendEncoded(_ bytes: [UInt8]?) {
            if let bytes {
                data.appendBigEndian(Int32(bytes.count))
                data.append(contentsOf: bytes)
            } else {
                data.appendBigEndian(Int32(-1))
            }
            valueCount += 1
        }
    }
}
