internal import COpenSSL

/// An OpenSSL client context (`SSL_CTX`): TLS 1.2+, peer verification against the system trust store
/// plus an optional CA file, and the ALPN offer. Build one per configuration and share it; OpenSSL
/// allows concurrent `SSL_new` on one context.
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    public let configuration: TLSClientConfiguration

    /// - Throws: ``TLSError/caFileUnreadable(path:detail:)`` or ``TLSError/configurationFailed(_:)``.
    public init(configuration: TLSClientConfiguration) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .configurationFailed(OpenSSLError(function: "SSL_CTX_new").description)
        }
        pointer = context
        self.configuration = configuration
        // From here on `deinit` frees the context if a later step throws.
        guard herald_SSL_CTX_set_min_proto_version(context, herald_TLS1_2_VERSION()) == 1 else {
            throw .configurationFailed(OpenSSLError(function: "SSL_CTX_set_min_proto_version").description)
        }
        _ = herald_SSL_CTX_set_mode(context, herald_SSL_MODE_nonblocking_writes())  // returns the new mode
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(context) == 1 else {
            throw .configurationFailed(OpenSSLError(function: "SSL_CTX_set_default_verify_paths").description)
        }
        if let path = configuration.additionalCAFile {
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                throw .caFileUnreadable(
                    path: path, detail: OpenSSLError(function: "SSL_CTX_load_verify_locations").description)
            }
        }
        if !configuration.applicationProtocols.isEmpty {
            var wire: [UInt8] = []
            for name in configuration.applicationProtocols {
                let bytes = Array(name.utf8)
                guard !bytes.isEmpty, bytes.count < 256 else {
                    throw .configurationFailed("ALPN protocol name must be 1–255 bytes")
                }
                wire.append(UInt8(bytes.count))
                wire.append(contentsOf: bytes)
            }
            // SSL_CTX_set_alpn_protos returns 0 on success, unlike most OpenSSL functions.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw .configurationFailed(OpenSSLError(function: "SSL_CTX_set_alpn_protos").description)
            }
        }
    }

    deinit { SSL_CTX_free(pointer) }
}
