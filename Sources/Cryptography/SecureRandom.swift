internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let ok = buffer.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // RAND_bytes fails only when the DRBG cannot be seeded; continuing would hand out predictable secrets.
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSLError.drainQueue())")
        return buffer
    }
}
