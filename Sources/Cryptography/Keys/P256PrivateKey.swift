internal import COpenSSL
public import Foundation

/// A P-256 private key, as Apple's `.p8` files hold (PKCS#8 PEM). Signs ES256.
///
/// Safe to share between threads: OpenSSL 3 keys are immutable once loaded and every
/// signature uses its own digest context.
public final class P256PrivateKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Loads the key from PEM text: PKCS#8 (Apple's `.p8` form) or SEC 1 (OpenSSL's EC key form).
    /// - Throws: ``KeyError`` when the text is not a key, not an EC key, or not on P-256.
    public init(pem: String) throws(KeyError) {
        key = try readP256Key(pem: pem) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    /// Loads the key from a `.p8` file.
    /// - Throws: ``KeyError/missingFile(path:)`` when nothing can be read at `path`, else as ``init(pem:)``.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        try self.init(pem: readPEMFile(path))
    }

    deinit { EVP_PKEY_free(key) }

    /// The matching public key in SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            preconditionFailure("BIO_new failed: \(OpenSSLError.drainQueue())")
        }
        defer { BIO_free(bio) }
        // Writing a valid key into a memory BIO fails only when memory runs out.
        precondition(PEM_write_bio_PUBKEY(bio, key) == 1, "PEM_write_bio_PUBKEY: \(OpenSSLError.drainQueue())")
        var data: UnsafeMutablePointer<CChar>?
        let length = herald_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// The ES256 signature of `message`: ECDSA P-256 over SHA-256, as raw R‖S (64 bytes), the form
    /// JWS uses (RFC 7518 §3.4), not OpenSSL's DER.
    public func signES256(_ message: some DataProtocol) throws(OpenSSLError) -> [UInt8] {
        let der = try digestSign(Array(message))
        return try ECDSASignatureEncoding.rawFromDER(der)
    }

    private func digestSign(_ message: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError(function: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw OpenSSLError(function: "EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw OpenSSLError(function: "EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLError(function: "EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }
}
