internal import COpenSSL
import Foundation

/// A read-only OpenSSL memory BIO over a copy of some PEM text; frees itself in `deinit`.
final class PEMBIO {
    let pointer: OpaquePointer
    // BIO_new_mem_buf does not copy: the bytes must outlive the BIO, so the BIO keeps them.
    private let bytes: UnsafeMutableRawBufferPointer

    init(_ text: String) throws(KeyError) {
        let utf8 = Array(text.utf8)
        bytes = .allocate(byteCount: max(utf8.count, 1), alignment: 1)
        bytes.copyBytes(from: utf8)
        guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(utf8.count)) else {
            bytes.deallocate()
            throw .openSSL(OpenSSLError(function: "BIO_new_mem_buf").description)
        }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
        bytes.deallocate()
    }
}

/// Reads a whole PEM file, mapping absence to ``KeyError/missingFile(path:)``.
/// Reads a key from `pem` with `read` and checks that it is an EC key on P-256.
/// - Returns: the key, owned by the caller (free it with `EVP_PKEY_free`).
func readP256Key(pem: String, _ read: (OpaquePointer) -> OpaquePointer?) throws(KeyError) -> OpaquePointer {
    let bio = try PEMBIO(pem)
    guard let key = read(bio.pointer) else {
        _ = OpenSSLError.drainQueue()
        throw .notPEM
    }
    do {
        try requireP256(key)
    } catch {
        EVP_PKEY_free(key)
        throw error
    }
    return key
}

func readPEMFile(_ path: String) throws(KeyError) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { throw .missingFile(path: path) }
    return String(decoding: data, as: UTF8.self)
}

/// Checks that `key` is an EC key on P-256.
func requireP256(_ key: OpaquePointer) throws(KeyError) {
    guard EVP_PKEY_get_base_id(key) == herald_EVP_PKEY_EC() else { throw .notAnECKey }
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
        throw .openSSL(OpenSSLError(function: "EVP_PKEY_get_group_name").description)
    }
    let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // OpenSSL names P-256 "prime256v1" (its X9.62 name); accept the NIST spelling too.
    guard curve == "prime256v1" || curve == "P-256" else { throw .wrongCurve(curve) }
}
