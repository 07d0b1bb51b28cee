import Glibc

/// A pipe another thread writes a byte into to interrupt a `poll` call; owns both descriptors.
final class WakePipe: Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw PostgresError(kind: .invalidUsage, message: "pipe failed: \(String(cString: strerror(errno)))")
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        for descriptor in descriptors {
            // Neither side may block: a full pipe already wakes the reader, and the reader drains until empty.
            guard fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0, fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
                // Both descriptors are stored, so deinit closes them.
                throw PostgresError(kind: .invalidUsage, message: "fcntl failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the reading side readable. A full pipe already is, so `EAGAIN` needs no handling.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe after `poll` reported it readable.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
