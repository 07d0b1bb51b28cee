/// An APNs device token, validated once with the one rule Herald applies at registration and at send: an even
/// number of hexadecimal digits, 16 to 256 bytes (Apple's tokens are 32 bytes today, and Apple asks providers not
/// to depend on that). Stored lowercase.
///
/// `description` never shows the token; use ``hex`` deliberately where it is needed (the request path).
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The shortest and longest tokens accepted, in bytes.
    public static let byteCounts = 16...256

    /// The token as lowercase hexadecimal.
    public let hex: String

    /// - Returns: nil when `hex` is not hexadecimal, has an odd number of digits, or is not 16 to 256 bytes long.
    public init?(hex: String) {
        let lowered = hex.lowercased()
        guard lowered.utf8.count % 2 == 0, Self.byteCounts.contains(lowered.utf8.count / 2),
            lowered.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        self.hex = lowered
    }

    public var description: String { "DeviceToken(redacted, \(hex.utf8.count / 2) bytes)" }
}
