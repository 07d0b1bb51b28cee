internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TLS client connection over a non-blocking TCP socket: owns the socket and the `SSL` object and
/// frees both in `deinit`.
///
/// Connecting blocks the calling thread (with a deadline), so call it from a dedicated thread, never
/// from Swift's cooperative pool. Afterwards ``read(into:)`` and ``write(_:)`` never block: they report
/// ``IOResult/wantRead`` or ``IOResult/wantWrite`` so the owner can `poll` ``fileDescriptor``.
/// Use from one thread at a time.
public final class TLSClientConnection {
    /// The result of a non-blocking read or write.
    public enum IOResult: Equatable, Sendable {
        /// This many bytes were read or written.
        case transferred(Int)
        /// Retry when the socket is readable.
        case wantRead
        /// Retry when the socket is writable.
        case wantWrite
        /// The peer closed the connection.
        case closed
    }

    /// The socket, for `poll`.
    public let fileDescriptor: Int32
    /// The ALPN protocol the server selected, if any.
    public private(set) var negotiatedProtocol: String?
    private let ssl: OpaquePointer

    /// Connects to `host:port`, verifies the server's certificate chain and name, and checks ALPN.
    /// - Parameters:
    ///   - host: A DNS name (sent as SNI and checked against the certificate) or an IP address
    ///     (checked against the certificate's IP entries).
    ///   - port: The TCP port.
    ///   - context: Trust store and ALPN offer.
    ///   - timeout: Limit for TCP connect plus handshake.
    /// - Throws: ``TLSError``.
    public init(host: String, port: Int, context: TLSContext, timeout: Duration) throws(TLSError) {
        let deadline = ContinuousClock.now + timeout
        let descriptor = try TCPSocket.connect(host: host, port: port, deadline: deadline)
        guard let ssl = SSL_new(context.pointer) else {
            close(descriptor)
            throw .configurationFailed(OpenSSLError(function: "SSL_new").description)
        }
        fileDescriptor = descriptor
        self.ssl = ssl
        // From here on `deinit` frees both if a later step throws.
        guard SSL_set_fd(ssl, descriptor) == 1 else {
            throw .configurationFailed(OpenSSLError(function: "SSL_set_fd").description)
        }
        try configureNameVerification(host: host)
        try handshake(host: host, port: port, deadline: deadline)
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        if let selected, length > 0 {
            negotiatedProtocol = String(
                decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
        }
        if let required = context.configuration.requiredApplicationProtocol, negotiatedProtocol != required {
            throw .alpnNotNegotiated(required: required, selected: negotiatedProtocol)
        }
    }

    deinit {
        SSL_free(ssl)
        close(fileDescriptor)
    }

    private func configureNameVerification(host: String) throws(TLSError) {
        if Self.isIPAddress(host) {
            // SNI must not carry an IP address (RFC 6066 §3); match the certificate's IP entries instead.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw .configurationFailed(OpenSSLError(function: "X509_VERIFY_PARAM_set1_ip_asc").description)
            }
        } else {
            guard herald_SSL_set_tlsext_host_name(ssl, host) == 1 else {
                throw .configurationFailed(OpenSSLError(function: "SSL_set_tlsext_host_name").description)
            }
            guard SSL_set1_host(ssl, host) == 1 else {
                throw .configurationFailed(OpenSSLError(function: "SSL_set1_host").description)
            }
        }
    }

    private func handshake(host: String, port: Int, deadline: ContinuousClock.Instant) throws(TLSError) {
        while true {
            let result = SSL_connect(ssl)
            if result == 1 { return }
            let code = SSL_get_error(ssl, result)
            let events: Int16
            switch code {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default:
                let verification = SSL_get_verify_result(ssl)
                if verification != X509_V_OK {
                    _ = OpenSSLError.drainQueue()
                    throw .certificateRejected(
                        host: host, reason: String(cString: X509_verify_cert_error_string(verification)))
                }
                let queued = OpenSSLError.drainQueue()
                let detail = queued.isEmpty ? "connection closed during handshake" : queued.joined(separator: "; ")
                throw .handshakeFailed(host: host, detail: detail)
            }
            guard try TCPSocket.wait(fileDescriptor, for: events, until: deadline) else {
                throw .timedOut(host: host, port: port)
            }
        }
    }

    /// Reads decrypted bytes into `buffer` without blocking.
    /// - Throws: ``TLSError/ioFailed(_:)`` on a protocol or socket error.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> IOResult {
        var count = 0
        let result = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if result == 1 { return .transferred(count) }
        return try interpret(result, operation: "SSL_read")
    }

    /// Writes bytes without blocking; may write fewer than given.
    /// - Throws: ``TLSError/ioFailed(_:)`` on a protocol or socket error.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(TLSError) -> IOResult {
        var count = 0
        let result = SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count)
        if result == 1 { return .transferred(count) }
        return try interpret(result, operation: "SSL_write")
    }

    private func interpret(_ result: Int32, operation: String) throws(TLSError) -> IOResult {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let savedErrno = errno
            let queued = OpenSSLError.drainQueue()
            if queued.isEmpty && (savedErrno == 0 || savedErrno == ECONNRESET || savedErrno == EPIPE) { return .closed }
            let reason = queued.isEmpty ? String(cString: strerror(savedErrno)) : queued.joined(separator: "; ")
            throw .ioFailed("\(operation): \(reason)")
        default:
            let queued = OpenSSLError.drainQueue()
            // OpenSSL 3 reports a peer that closed without close_notify as an SSL error: treat it as a close.
            if queued.contains(where: { $0.contains("unexpected eof") }) { return .closed }
            throw .ioFailed("\(operation): \(queued.joined(separator: "; "))")
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
