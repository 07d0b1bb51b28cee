internal import COpenSSL
public import Foundation

/// A P-256 public key (SubjectPublicKeyInfo PEM). Verifies ES256 signatures.
public final class P256PublicKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Loads the key from `-----BEGIN PUBLIC KEY-----` PEM text.
    /// - Throws: ``KeyError`` when the text is not a public key, not EC, or not on P-256.
    public init(pem: String) throws(KeyError) {
        key = try readP256Key(pem: pem) { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
    }

    /// Loads the key from a PEM file.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        try self.init(pem: readPEMFile(path))
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` (raw R‖S, 64 bytes) is a valid ES256 signature of `message`.
    /// Malformed signatures are simply invalid: a peer controls them.
    public func isValidES256Signature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        guard let der = ECDSASignatureEncoding.derFromRaw(Array(signature)) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            _ = OpenSSLError.drainQueue()
            return false
        }
        let bytes = Array(message)
        let result = EVP_DigestVerify(context, der, der.count, bytes, bytes.count)
        _ = OpenSSLError.drainQueue()
        return result == 1
    }
}
