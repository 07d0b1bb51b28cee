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

    /// What decides the fields that consecutive pushes of one app share, so that they are written once.
    struct SharedKey: Equatable {
        let authority: String
        let authorization: String
        let topic: String
        let pushType: PushType
        let priority: PushPriority
    }

    package private(set) var bytes: [UInt8] = []
    package private(set) var fields: [Field] = []
    /// The shared fields at the start of ``bytes``, kept from request to request while their key stays the same.
    private var sharedKey: SharedKey?
    private var sharedFields: [Field] = []
    private var sharedByteCount = 0

    package init() {}

    /// Empties the block, keeping its storage for the next request.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        sharedKey = nil
    }

    /// Empties the block but for the shared fields of `key`, which `writeShared` writes when `key` differs from the
    /// last request's. The shared fields take their place among the others through ``appendSharedFields(_:)``.
    mutating func removeAll(keepingFieldsSharedBy key: SharedKey, writeShared: (inout HeaderBlock) -> Void) {
        if key == sharedKey {
            bytes.removeLast(bytes.count - sharedByteCount)
            fields.removeAll(keepingCapacity: true)
            return
        }
        removeAll()
        writeShared(&self)
        swap(&sharedFields, &fields)
        fields.removeAll(keepingCapacity: true)
        sharedByteCount = bytes.count
        sharedKey = key
    }

    /// Appends the shared fields at `positions` in the order ``removeAll(keepingFieldsSharedBy:writeShared:)`` wrote
    /// them.
    mutating func appendSharedFields(_ positions: Range<Int>) {
        fields.append(contentsOf: sharedFields[positions])
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
