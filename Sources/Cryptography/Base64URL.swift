public import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
public enum Base64URL {
    /// `bytes` in base64url, without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        // Byte by byte: String's replacingOccurrences goes through NSString on Linux, several times slower.
        let base64 = Data(bytes).base64EncodedData()
        var text: [UInt8] = []
        text.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): break
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The decoded bytes, or `nil` if `text` is not base64url (padding included: base64url leaves it out).
    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): return nil
            default: base64.append(byte)
            }
        }
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 4 - remainder)) }
        return Data(base64Encoded: Data(base64))
    }
}
