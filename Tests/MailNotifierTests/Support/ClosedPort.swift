import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 that is bound but not listening: connections to it are refused, and no other
/// test can take it while this value lives.
final class ClosedPort {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let code = errno
            close(descriptor)
            throw TestServerError(call: "bind/getsockname", code: code)
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit {
        close(descriptor)
    }
}
