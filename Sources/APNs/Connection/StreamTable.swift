import Foundation

/// The state of every open stream of one ``HTTP2Session`` in a flat table whose rows are reused, so that opening
/// and answering a stream neither allocates nor hashes: nghttp2 keeps each stream's row number as its user data.
struct StreamTable {
    /// One open request: the body still to send and the response so far.
    struct Row {
        var requestBody = Data()
        var bodyOffset = 0
        var status: Int?
        var apnsID: String?
        var uniqueID: String?
        var channelID: String?
        var responseBody: [UInt8] = []
        /// The server's END_STREAM arrived: the response is whole.
        var responseComplete = false
    }

    private var rows: [Row] = []
    private var freeRows: [Int] = []

    /// Takes a free row for a request with `body`; give it back with ``release(_:)``.
    mutating func claim(requestBody: Data) -> Int {
        if let row = freeRows.popLast() {
            rows[row].requestBody = requestBody
            return row
        }
        rows.append(Row(requestBody: requestBody))
        return rows.count - 1
    }

    /// Empties `row` for the next stream and returns what it held.
    mutating func release(_ row: Int) -> Row {
        freeRows.append(row)
        var released = Row()
        swap(&released, &rows[row])
        return released
    }

    // What the callbacks do for every stream goes through the methods below, which reach into `rows[row]` in place:
    // reading a whole row through a subscript copies it, retaining everything it holds.

    subscript(row: Int) -> Row {
        _read { yield rows[row] }
        _modify { yield &rows[row] }
    }

    /// Copies the next piece of `row`'s request body into `buffer`.
    /// - Returns: How many bytes were copied, and whether they were the last.
    mutating func readRequestBody(of row: Int, into buffer: UnsafeMutableRawBufferPointer) -> (
        count: Int, isLast: Bool
    ) {
        let offset = rows[row].bodyOffset
        let count = min(buffer.count, rows[row].requestBody.count - offset)
        rows[row].requestBody.withUnsafeBytes { body in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[offset..<offset + count]))
        }
        rows[row].bodyOffset = offset + count
        return (count, offset + count == rows[row].requestBody.count)
    }

    mutating func appendResponseBody(_ data: UnsafeBufferPointer<UInt8>, to row: Int) {
        // Every body APNs sends is a JSON object (a reason, a channel's settings, a list of channels); anything else,
        // such as a proxy's HTML page, carries nothing to read, so it is not kept (nor allocated for, per answer).
        if rows[row].responseBody.isEmpty, data.first != UInt8(ascii: "{") { return }
        // Cap what a misbehaving server can make us hold.
        guard rows[row].responseBody.count + data.count <= 64 * 1024 else { return }
        rows[row].responseBody.append(contentsOf: data)
    }

    /// nghttp2's stream user data for `row`: its number plus one, so that no row is a null pointer.
    static func userData(for row: Int) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: row + 1) }

    /// The row that ``userData(for:)`` gave.
    static func row(from userData: UnsafeMutableRawPointer?) -> Int? { userData.map { Int(bitPattern: $0) - 1 } }
}
