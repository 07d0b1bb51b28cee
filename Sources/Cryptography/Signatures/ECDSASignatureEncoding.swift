internal import COpenSSL

/// Conversion between OpenSSL's DER ECDSA signatures and the raw R‖S form JWS uses.
enum ECDSASignatureEncoding {
    static let scalarLength = 32

    /// Raw R‖S, each left-padded to 32 bytes, from a DER `ECDSA-Sig-Value`.
    static func rawFromDER(_ der: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else { throw OpenSSLError(function: "d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 2 * scalarLength)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(scalarLength)) == Int32(scalarLength)
                && BN_bn2binpad(s, buffer.baseAddress! + scalarLength, Int32(scalarLength)) == Int32(scalarLength)
        }
        guard ok else { throw OpenSSLError(function: "BN_bn2binpad") }
        return raw
    }

    /// A DER `ECDSA-Sig-Value` from raw R‖S, or `nil` when the input is not 64 bytes.
    static func derFromRaw(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarLength else { return nil }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(scalarLength), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + scalarLength, Int32(scalarLength), nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
