/// Why a TLS connection could not be made or used.
public enum TLSError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The host name did not resolve.
    case resolutionFailed(host: String, detail: String)
    /// The TCP connection failed (`errno` given).
    case connectFailed(host: String, port: Int, errno: Int32)
    /// Connecting or the handshake took longer than allowed.
    case timedOut(host: String, port: Int)
    /// The server's certificate chain or name did not verify.
    case certificateRejected(host: String, reason: String)
    /// The server did not select the required ALPN protocol.
    case alpnNotNegotiated(required: String, selected: String?)
    /// The handshake failed for another reason (protocol version, alert from the server, …).
    case handshakeFailed(host: String, detail: String)
    /// The extra CA file could not be loaded.
    case caFileUnreadable(path: String, detail: String)
    /// Setting up the OpenSSL context failed.
    case configurationFailed(String)
    /// Reading or writing failed after the handshake.
    case ioFailed(String)

    public var description: String {
        switch self {
        case .resolutionFailed(let host, let detail): "cannot resolve \(host): \(detail)"
        case .connectFailed(let host, let port, let code): "cannot connect to \(host):\(port): \(errnoText(code))"
        case .timedOut(let host, let port): "timed out connecting to \(host):\(port)"
        case .certificateRejected(let host, let reason): "certificate of \(host) rejected: \(reason)"
        case .alpnNotNegotiated(let required, let selected):
            "server did not select ALPN \"\(required)\" (selected \(selected.map { "\"\($0)\"" } ?? "none")); "
                + "it does not speak HTTP/2 over TLS"
        case .handshakeFailed(let host, let detail): "TLS handshake with \(host) failed: \(detail)"
        case .caFileUnreadable(let path, let detail): "cannot load CA file \(path): \(detail)"
        case .configurationFailed(let detail): "TLS configuration failed: \(detail)"
        case .ioFailed(let detail): "TLS I/O failed: \(detail)"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
