internal import COpenSSL
public import Foundation

/// HMAC-SHA256 (the HS256 JWT algorithm).
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func authenticationCode(for message: some DataProtocol, key: some DataProtocol) -> [UInt8] {
        let keyBytes = Array(key)
        let messageBytes = Array(message)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = keyBytes.withUnsafeBytes { keyBuffer in
            // A zero-length key still needs a non-null pointer for HMAC().
            HMAC(
                EVP_sha256(), keyBuffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(keyBytes.count),
                messageBytes, messageBytes.count, &output, &length)
        }
        // HMAC with a built-in digest fails only when memory runs out.
        precondition(result != nil, "HMAC failed: \(OpenSSLError.drainQueue())")
        return Array(output.prefix(Int(length)))
    }

    /// Whether `code` is the MAC of `message` under `key`, compared in constant time.
    public static func isValidAuthenticationCode(
        _ code: some DataProtocol, for message: some DataProtocol, key: some DataProtocol
    ) -> Bool {
        let expected = authenticationCode(for: message, key: key)
        let given = Array(code)
        guard given.count == expected.count else { return false }
        return CRYPTO_memcmp(given, expected, expected.count) == 0
    }
}
