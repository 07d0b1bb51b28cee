import Dispatch
import Glibc

/// Waits for SIGINT or SIGTERM, which then no longer end the process at once, so it can stop cleanly.
///
/// Unchecked `Sendable`: nothing changes after `init`, and the sources are only kept alive.
final class ShutdownSignal: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Returns when the first signal arrives.
    func wait() async {
        for await _ in stream { return }
    }
}
