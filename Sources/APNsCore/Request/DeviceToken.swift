/// An APNs device token, validated once: an even number of hexadecimal digits (Apple's tokens are
/// 32 bytes today; longer ones are accepted). Stored lowercase.
///
/// `description` never shows the token; use ``hex`` deliberately where it is needed (the request path).
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The token as lowercase hexadecimal.
    public let hex: String

    /// - Returns: nil when `hex` is empty, odd-length, longer than 200 bytes or not hexadecimal.
    public init?(hex: String) {
        let lowered = hex.lowercased()
        guard !lowered.isEmpty, lowered.utf8.count % 2 == 0, lowered.utf8.count <= 400,
            lowered.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        self.hex = lowered
    }

    public var description: String { "DeviceToken(redacted, \(hex.utf8.count / 2) bytes)" }
}
