#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking pipe that wakes a ``ConnectionThread`` from `poll`: callers write a byte, the thread drains them.
/// Owns both descriptors and closes them in `deinit`.
final class WakePipe: Sendable {
    /// The end the thread polls.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() {
        var descriptors: [Int32] = [0, 0]
        // pipe and fcntl fail only when the process is out of descriptors, which no request can fix.
        precondition(pipe(&descriptors) == 0, "pipe failed: errno \(errno)")
        for descriptor in descriptors {
            precondition(fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0, "fcntl failed: errno \(errno)")
            precondition(fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0, "fcntl failed: errno \(errno)")
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    func wake() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds unread wake-ups, which is all a wake-up needs.
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe; EAGAIN just means it is already empty.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(readDescriptor, &bytes, bytes.count) == bytes.count {}
    }
}
