import PollSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening non-blocking TCP connections, waiting under `poll` with a deadline.
enum TCPSocket {
    /// A connected, non-blocking, close-on-exec socket with `TCP_NODELAY`; the caller owns it.
    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(TLSError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .resolutionFailed(host: host, detail: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var lastErrno: Int32 = ECONNREFUSED
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let address = cursor {
            cursor = address.pointee.ai_next
            let descriptor = socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                lastErrno = errno
                continue
            }
            var one: Int32 = 1
            // Without TCP_NODELAY small HTTP/2 frames wait for Nagle's timer; failure only costs latency.
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                return descriptor
            }
            guard errno == EINPROGRESS else {
                lastErrno = errno
                close(descriptor)
                continue
            }
            let writable: Bool
            do {
                writable = try wait(descriptor, for: Int16(POLLOUT), until: deadline)
            } catch {
                close(descriptor)
                throw error
            }
            guard writable else {
                close(descriptor)
                throw .timedOut(host: host, port: port)
            }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0, socketError == 0 else {
                lastErrno = socketError == 0 ? errno : socketError
                close(descriptor)
                continue
            }
            return descriptor
        }
        throw .connectFailed(host: host, port: port, errno: lastErrno)
    }

    /// Waits until `descriptor` has one of `events`; false when the deadline passes first.
    static func wait(_ descriptor: Int32, for events: Int16, until deadline: ContinuousClock.Instant) throws(TLSError)
        -> Bool
    {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, pollMilliseconds(remaining))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw .ioFailed("poll: \(String(cString: strerror(errno)))") }
        }
    }
}
