public import Foundation

/// The `apns-id` of a push: a UUID, sent and compared in lowercase.
///
/// Formatting, parsing and generation are done here rather than through Foundation, whose UUID parser
/// goes through `sscanf` and whose generator opens `/dev/urandom` on every call: both sit on the path
/// of every push.
public struct APNsID: Hashable, Sendable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// A new random (version 4) id.
    public init() {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        let uuid = withUnsafeMutableBytes(of: &bytes) { raw -> uuid_t in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
            return raw.load(as: uuid_t.self)
        }
        self.uuid = UUID(uuid: uuid)
    }

    /// Parses the canonical 8-4-4-4-12 form, in either case.
    public init?(_ text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return nil }
            // A tuple on the stack, not an array: Apple echoes an apns-id with every answer.
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var index = 0
            var position = 0
            while position < 36 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard utf8[position] == UInt8(ascii: "-") else { return nil }
                    position += 1
                    continue
                }
                guard let high = Self.nibble(utf8[position]), let low = Self.nibble(utf8[position + 1]) else {
                    return nil
                }
                withUnsafeMutableBytes(of: &uuid) { $0[index] = high << 4 | low }
                index += 1
                position += 2
            }
            return uuid
        }
        guard let parsed else { return nil }
        uuid = UUID(uuid: parsed)
    }

    /// The lowercase canonical form Apple echoes.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { format(into: $0) }
    }

    /// Appends the canonical form to `bytes`, for writing a header without building a String.
    package func appendCanonical(to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { _ = format(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
    }

    /// Writes the 36 bytes of the canonical form at the start of `output`; returns 36.
    private func format(into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid.uuid) { raw in
            var position = 0
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = digits.utf8Start[Int(byte >> 4)]
                output[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
