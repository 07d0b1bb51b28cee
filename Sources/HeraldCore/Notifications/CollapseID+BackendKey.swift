public import APNsCore
import Cryptography

extension CollapseID {
    /// The most code points a backend's `collapseId` may have (what `openapi.yaml` states as `maxLength`).
    public static let maximumBackendKeyLength = 64

    /// The collapse id for a backend's key of 1 to 64 code points: the key itself when its UTF-8 fits Apple's 64
    /// bytes, else the hex SHA-256 of it, cut to 64 characters. The mapping is fixed, so every push sent with one key
    /// still replaces the previous one on the device, which is all a collapse id does (the app never sees it).
    /// - Returns: nil when the key is empty, longer than 64 code points, or not a safe header value (a key that
    ///   is refused, rather than hashed into a safe one, so the backend learns of its bad value).
    public init?(backendKey key: String) {
        guard (1...Self.maximumBackendKeyLength).contains(key.codePointCount), HeaderValue.isSafe(key) else {
            return nil
        }
        if let fitting = CollapseID(key) {
            self = fitting
        } else if let digest = CollapseID(String(SHA256.hexDigest(Array(key.utf8)).prefix(Self.maximumLength))) {
            self = digest
        } else {
            return nil
        }
    }
}
