import Foundation

/// The `collapseId` of an email's banner: a repeat replaces the banner on the device instead of adding
/// a second one. APNs caps it at 64 bytes, so an identifier that does not fit is shortened to
/// `email-` + the base64url of the id's SHA-256 bytes (49 bytes), which stays stable across runs.
public struct CollapseID: Hashable, Sendable, CustomStringConvertible {
    public static let maximumByteCount = 64

    public let rawValue: String

    public init(_ identifier: NotificationRequestID) {
        let full = identifier.rawValue
        if full.utf8.count <= Self.maximumByteCount {
            rawValue = full
        } else {
            let bytes =
                identifier.emailId.digestBytes ?? SHA256Digest(of: Data(identifier.emailId.rawValue.utf8)).bytes
            rawValue = "email-" + Self.base64URL(bytes)
        }
    }

    public var description: String { rawValue }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
