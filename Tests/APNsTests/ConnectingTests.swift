import APNs
import APNsCore
import Cryptography
import Foundation
import HeraldTesting
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Networked {
    /// A pool's connections share one thread, so a TCP connect and TLS handshake, which block, run on a thread of
    /// their own: a handshake that hangs must neither stall the pool's clock nor outlive the pool.
    @Suite
    struct ConnectingTests {
        /// The request's deadline passes while the handshake still hangs: the caller hears `timedOut` then, not the
        /// connect failure at the (much later) connect timeout.
        @Test func requestTimesOutWhileTheHandshakeHangs() async throws {
            let listener = try SilentListener()
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            var configuration = harness.configuration(requestTimeout: .milliseconds(300))
            configuration.endpoint = APNsEndpoint(host: "127.0.0.1", port: listener.port)
            configuration.connectTimeout = .seconds(3)
            // Stopping the pool afterwards waits for the connect thread, until the connect timeout.
            let (result, waited) = try await harness.withPool(configuration) { pool in
                let started = ContinuousClock.now
                let result = try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                return (result, ContinuousClock.now - started)
            }
            #expect(result == .failed(.timedOut))
            #expect(waited < .seconds(2), "the deadline ran while the handshake hung")
        }

        /// Stopping the pool mid-handshake answers the caller at once, and the pool's run returns only once the
        /// connect thread has handed its connection back and everything the loop owned is freed.
        @Test func stoppingMidHandshakeAnswersAndFreesEverything() async throws {
            let listener = try SilentListener()
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            var configuration = harness.configuration()
            configuration.endpoint = APNsEndpoint(host: "127.0.0.1", port: listener.port)
            configuration.connectTimeout = .milliseconds(500)
            weak var releasedTokens: ProviderTokenSource?
            do {
                let tokens = try harness.tokenSource()
                releasedTokens = tokens
                let pool = try APNsConnectionPool(
                    configuration: configuration, tokens: tokens, logger: Logger(label: "test"))
                let runner = Task { await pool.run() }
                let open = Task { try await pool.send(MockHarness.alert(MockHarness.deviceToken())) }
                try await Task.sleep(for: .milliseconds(100))
                runner.cancel()
                #expect(try await open.value == .failed(.shutDown))
                await runner.value
            }
            #expect(releasedTokens == nil, "the pool stopped before its loop was freed")
        }
    }
}

/// A TCP port that completes connections (the kernel does, into the backlog) but never answers: a TLS handshake
/// with it hangs until the client's timeout.
private final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TLSError.ioFailed("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TLSError.ioFailed("bind or listen: errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
