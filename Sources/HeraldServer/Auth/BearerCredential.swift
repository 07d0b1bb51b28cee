import HeraldCore

/// A bearer value sorted by its shape alone, before anything looks it up or checks a signature: a value that can be
/// neither a Herald API key nor a JWT is refused without a database session, so a flood of garbage credentials
/// costs no more than reading them.
enum BearerCredential: Equatable {
    /// Shaped like a key ``APIKeyStore`` makes; whether it exists is the store's to say.
    case apiKey(String)
    /// Shaped like a JWT: three base64url parts separated by dots.
    case userToken(String)

    /// The longest user token taken; larger values are refused unread (``UserTokenVerifier`` has the same bound).
    static let maximumTokenLength = 8192

    /// - Returns: `nil` for a value that can be neither kind.
    init?(_ value: String) {
        if value.hasPrefix(APIKeyStore.keyPrefix) {
            guard APIKeyStore.isWellFormed(value) else { return nil }
            self = .apiKey(value)
            return
        }
        guard value.utf8.count <= Self.maximumTokenLength, Self.isJWTShaped(value) else { return nil }
        self = .userToken(value)
    }

    /// Three non-empty parts of base64url characters, separated by two dots.
    private static func isJWTShaped(_ value: String) -> Bool {
        var parts = 1
        var partLength = 0
        for byte in value.utf8 {
            if byte == UInt8(ascii: ".") {
                guard partLength > 0 else { return false }
                parts += 1
                partLength = 0
            } else {
                guard APIKeyStore.isBase64URL(byte) else { return false }
                partLength += 1
            }
        }
        return parts == 3 && partLength > 0
    }
}
