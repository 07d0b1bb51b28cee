/// A request's header block as one byte buffer plus where each field lies in it, written straight from the
/// request so that sending a push builds no String and no array per header. One block is reused for every request.
package struct HeaderBlock: Sendable {
    /// Where one field's name and value lie in ``bytes``.
    package struct Field: Sendable {
        package let nameStart: Int
        package let nameLength: Int
        package let valueLength: Int
        /// HPACK must never index it (a secret, or a value unique to the request).
        package let neverIndexed: Bool

        package var valueStart: Int { nameStart + nameLength }
    }

    package private(set) var bytes: [UInt8] = []
    package private(set) var fields: [Field] = []

    package init() {}

    /// Empties the block, keeping its storage for the next request.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
    }

    mutating func append(_ name: StaticString, _ value: StaticString) {
        append(name, neverIndexed: false) { $0.appendASCII(value) }
    }

    mutating func append(_ name: StaticString, _ value: String, neverIndexed: Bool = false) {
        append(name, neverIndexed: neverIndexed) { $0.appendUTF8(value) }
    }

    mutating func append(_ name: StaticString, _ value: Int) {
        append(name, neverIndexed: false) { $0.appendDecimal(value) }
    }

    /// Appends a field whose value `writeValue` writes with the `append…` methods below.
    mutating func append(_ name: StaticString, neverIndexed: Bool, writeValue: (inout HeaderBlock) -> Void) {
        let nameStart = bytes.count
        appendASCII(name)
        let valueStart = bytes.count
        writeValue(&self)
        fields.append(
            Field(
                nameStart: nameStart, nameLength: valueStart - nameStart, valueLength: bytes.count - valueStart,
                neverIndexed: neverIndexed))
    }

    mutating func appendASCII(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a string's bytes as one copy of its contiguous storage, not byte by byte through its UTF-8 view.
    mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends a non-negative number in decimal.
    mutating func appendDecimal(_ value: Int) {
        precondition(value >= 0, "header numbers are counts and priorities")
        var divisor = 1
        while value / divisor >= 10 { divisor *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    mutating func appendAPNsID(_ id: APNsID) { id.appendCanonical(to: &bytes) }
}
