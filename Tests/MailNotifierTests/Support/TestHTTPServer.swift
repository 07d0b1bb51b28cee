import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A request as the test server received it; header names are lowercased.
struct RecordedRequest: Sendable {
    let method: String
    let path: String
    let headers: [String: String]
    let body: Data

    /// The body parsed as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }
}

/// How the test server answers a request.
enum TestHTTPReply: Sendable {
    case respond(status: Int, body: String)
    /// Keep the connection open and never answer, like a hung gateway.
    case neverAnswer
}

struct TestServerError: Error, CustomStringConvertible {
    let call: String
    let code: Int32

    var description: String { "\(call) failed: errno \(code)" }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 with an ephemeral port, on POSIX sockets. Blocking calls
/// run on dedicated threads, never on Swift's cooperative pool.
final class TestHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let reply: @Sendable (RecordedRequest) -> TestHTTPReply
    private let lock = NSLock()
    private var recorded: [RecordedRequest] = []
    private var connections: Set<Int32> = []
    private var isStopped = false

    init(reply: @escaping @Sendable (RecordedRequest) -> TestHTTPReply) throws {
        self.reply = reply
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw TestServerError(call: "bind/listen", code: code)
        }
        var actual = sockaddr_in()
        var actualLength = length
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw TestServerError(call: "getsockname", code: code)
        }
        self.listener = descriptor
        self.port = UInt16(bigEndian: actual.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var requests: [RecordedRequest] {
        lock.withLock { recorded }
    }

    /// Stops listening and ends every open connection. Only `shutdown` happens here: each descriptor is
    /// closed by the thread that uses it, so no thread can touch a number the system has reused.
    func stop() {
        let open = lock.withLock {
            isStopped = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in open {
            shutdown(connection, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let accepted = lock.withLock {
                guard !isStopped else { return false }
                connections.insert(connection)
                return true
            }
            guard accepted else {
                close(connection)
                continue
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { release(connection) }
        guard let request = readRequest(connection) else { return }
        lock.withLock { recorded.append(request) }
        switch reply(request) {
        case .neverAnswer:
            // Hold the connection until the client gives up or the server stops.
            var ignored: [UInt8] = []
            while readMore(connection, into: &ignored) {}
        case .respond(let status, let body):
            let payload = Array(body.utf8)
            let head =
                "HTTP/1.1 \(status) Test\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\n"
                + "Connection: close\r\n\r\n"
            writeAll(connection, Array(head.utf8) + payload)
        }
    }

    private func readRequest(_ connection: Int32) -> RecordedRequest? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            guard readMore(connection, into: &buffer) else { return nil }
            headerEnd = buffer.firstRange(of: separator)?.upperBound
        }
        guard let headerEnd else { return nil }
        let headText = String(decoding: buffer[..<(headerEnd - 4)], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            writeAll(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let contentLength = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count - headerEnd < contentLength {
            guard readMore(connection, into: &buffer) else { return nil }
        }
        return RecordedRequest(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
            body: Data(buffer[headerEnd..<(headerEnd + contentLength)]))
    }

    private func readMore(_ connection: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    private func writeAll(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Forgets the connection, so ``stop()`` no longer shuts it down, then closes it.
    private func release(_ connection: Int32) {
        lock.withLock { _ = connections.remove(connection) }
        close(connection)
    }
}
