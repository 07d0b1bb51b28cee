internal import COpenSSL
public import Foundation

/// SHA-256 digests through OpenSSL's EVP interface.
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func hash(_ data: some DataProtocol) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(data)
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                // EVP_Digest returns 1 on success; with a built-in digest and valid buffers it fails only
                // if OpenSSL cannot allocate, which no caller can recover from.
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1, "EVP_Digest(SHA-256) failed: \(OpenSSLError.drainQueue())")
        return digest
    }

    /// The lowercase hexadecimal form of the digest of `data`.
    public static func hexDigest(_ data: some DataProtocol) -> String {
        hash(data).hexEncodedString()
    }
}

extension Sequence<UInt8> {
    /// Lowercase hexadecimal, two characters per byte.
    public func hexEncodedString() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
