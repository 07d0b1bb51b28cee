internal import COpenSSL

/// AES-256-GCM through OpenSSL's EVP interface, for secrets at rest (signing keys sealed under the master key).
///
/// A sealed value is `nonce (12 bytes) || ciphertext || tag (16 bytes)`, with a fresh random nonce per seal.
/// `context` is authenticated but not stored: a value opens only with the context it was sealed with, so a sealed
/// key copied to another row does not open there.
public struct AES256GCM: Sendable {
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let tagLength = 16

    private let key: [UInt8]

    /// - Throws: ``AES256GCMError/badKeyLength`` unless `key` is 32 bytes.
    public init(key: [UInt8]) throws(AES256GCMError) {
        guard key.count == Self.keyLength else { throw .badKeyLength(key.count) }
        self.key = key
    }

    public func seal(_ plaintext: [UInt8], context: [UInt8] = []) throws(AES256GCMError) -> [UInt8] {
        let nonce = SecureRandom.bytes(count: Self.nonceLength)
        let cipher = try CipherContext(encrypting: true, key: key, nonce: nonce, context: context)
        var length: Int32 = 0
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Self.tagLength)
        try cipher.check(
            EVP_EncryptUpdate(cipher.pointer, &ciphertext, &length, plaintext, Int32(plaintext.count)),
            "EVP_EncryptUpdate")
        var written = Int(length)
        try ciphertext.withUnsafeMutableBufferPointer { buffer throws(AES256GCMError) in
            try cipher.check(
                EVP_EncryptFinal_ex(cipher.pointer, buffer.baseAddress! + written, &length), "EVP_EncryptFinal_ex")
            written += Int(length)
            try cipher.check(
                EVP_CIPHER_CTX_ctrl(
                    cipher.pointer, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), buffer.baseAddress! + written),
                "EVP_CTRL_GCM_GET_TAG")
        }
        return nonce + ciphertext.prefix(written + Self.tagLength)
    }

    /// - Throws: ``AES256GCMError/notAuthentic`` when the value was changed, sealed under another key or with
    ///   another context.
    public func open(_ sealed: [UInt8], context: [UInt8] = []) throws(AES256GCMError) -> [UInt8] {
        guard sealed.count >= Self.nonceLength + Self.tagLength else { throw .notAuthentic }
        let nonce = Array(sealed.prefix(Self.nonceLength))
        let ciphertext = Array(sealed.dropFirst(Self.nonceLength).dropLast(Self.tagLength))
        var tag = Array(sealed.suffix(Self.tagLength))
        let cipher = try CipherContext(encrypting: false, key: key, nonce: nonce, context: context)
        var length: Int32 = 0
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + Self.tagLength)
        try cipher.check(
            EVP_DecryptUpdate(cipher.pointer, &plaintext, &length, ciphertext, Int32(ciphertext.count)),
            "EVP_DecryptUpdate")
        var written = Int(length)
        try cipher.check(
            EVP_CIPHER_CTX_ctrl(cipher.pointer, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &tag),
            "EVP_CTRL_GCM_SET_TAG")
        let finished = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(cipher.pointer, buffer.baseAddress! + written, &length)
        }
        guard finished == 1 else {
            _ = OpenSSLError.drainQueue()
            throw .notAuthentic
        }
        written += Int(length)
        return Array(plaintext.prefix(written))
    }
}

public enum AES256GCMError: Error, Sendable, Equatable, CustomStringConvertible {
    case badKeyLength(Int)
    case notAuthentic
    case openSSL(String)

    public var description: String {
        switch self {
        case .badKeyLength(let count): "an AES-256 key is 32 bytes, not \(count)"
        case .notAuthentic: "the sealed value does not open with this key and context"
        case .openSSL(let detail): detail
        }
    }
}

/// Owns one `EVP_CIPHER_CTX` and frees it.
private final class CipherContext {
    let pointer: OpaquePointer

    /// A context set up for AES-256-GCM in one direction with `key` and `nonce`, `context` fed as authenticated data.
    init(encrypting: Bool, key: [UInt8], nonce: [UInt8], context: [UInt8]) throws(AES256GCMError) {
        guard let pointer = EVP_CIPHER_CTX_new() else {
            throw .openSSL(OpenSSLError(function: "EVP_CIPHER_CTX_new").description)
        }
        self.pointer = pointer
        let direction: Int32 = encrypting ? 1 : 0
        try check(EVP_CipherInit_ex(pointer, EVP_aes_256_gcm(), nil, nil, nil, direction), "EVP_CipherInit_ex")
        try check(
            EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil), "EVP_CTRL_GCM_SET_IVLEN")
        try check(EVP_CipherInit_ex(pointer, nil, nil, key, nonce, direction), "EVP_CipherInit_ex")
        if !context.isEmpty {
            var length: Int32 = 0
            try check(EVP_CipherUpdate(pointer, nil, &length, context, Int32(context.count)), "EVP_CipherUpdate")
        }
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    func check(_ result: Int32, _ function: String) throws(AES256GCMError) {
        guard result == 1 else { throw .openSSL(OpenSSLError(function: function).description) }
    }
}
