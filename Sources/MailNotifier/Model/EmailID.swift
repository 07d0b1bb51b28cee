import Foundation

/// The stable identifier of an email: the lowercase hex SHA-256 of its account id and Message-ID,
/// so the same message seen in two folders (or two syncs) has one identity.
public struct EmailID: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Derives the stable id from the account and the message's `Message-ID` header.
    public static func stable(accountId: AccountID, messageId: String) -> EmailID {
        EmailID(rawValue: SHA256Digest(of: Data((accountId.rawValue + messageId).utf8)).hexString)
    }

    /// The 32 digest bytes when the id is a SHA-256 hex string, else `nil`.
    var digestBytes: [UInt8]? {
        let utf8 = Array(rawValue.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < 64 {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
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
