#if canImport(Glibc)
    import Glibc
#endif

/// A pipe another thread writes a byte into to interrupt a `poll` call; owns both descriptors.
///
/// Shared by every thread Herald runs under `poll` (PostgreSQL's listener, the APNs connections).
public final class WakePipe: Sendable {
    /// Why the pipe could not be made: the process is out of descriptors.
    public struct Failure: Error, CustomStringConvertible {
        public let function: String
        public let code: Int32

        public var description: String { "\(function) failed: \(String(cString: strerror(code)))" }
    }

    /// The end to `poll` for readability.
    public let readDescriptor: Int32
    private let writeDescriptor: Int32

    public init() throws(Failure) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw Failure(function: "pipe", code: errno) }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        for descriptor in descriptors {
            // Neither side may block: a full pipe already wakes the reader, and the reader drains until empty.
            guard fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0, fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
                // Both descriptors are stored, so deinit closes them.
                throw Failure(function: "fcntl", code: errno)
            }
        }
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the reading side readable. A full pipe already is, so `EAGAIN` needs no handling.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe after `poll` reported it readable.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
