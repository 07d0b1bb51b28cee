import Glibc

/// Asks the kernel for a loopback TCP port nobody is using right now.
///
/// Another process could take it before the caller binds it, so callers retry on "address in use".
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PortError(reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw PortError(reason: String(cString: strerror(errno))) }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw PortError(reason: String(cString: strerror(errno))) }
    return Int(UInt16(bigEndian: address.sin_port))
}

struct PortError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "could not find a free loopback port: \(reason)" }
}
