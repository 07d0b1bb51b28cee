import Foundation
import HeraldIngress
import HeraldTesting
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Testing

/// A client that opens connections and says nothing does not hold them: the ingress closes a connection past its
/// limit at once, one that does not finish its TLS handshake in time, and one idle too long.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct IngressConnectionLimitsTests {
    /// A plain TCP connection to the ingress, which never starts a TLS handshake unless `tls` is given; then
    /// `handshake` is completed once it is done.
    static func connect(
        to harness: IngressHarness, tls: NIOSSLContext? = nil, handshake: EventLoopPromise<Void>? = nil
    ) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: "localhost"))
                        try channel.pipeline.syncOperations.addHandler(HandshakeWitness(done: handshake))
                    }
                }
            }
            .connect(host: "127.0.0.1", port: harness.ingressPort).get()
    }

    /// Whether `channel` is closed within `limit`.
    static func closes(_ channel: any Channel, within limit: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while channel.isActive, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return !channel.isActive
    }

    @Test func aConnectionThatNeverStartsItsHandshakeIsClosed() async throws {
        let harness = try await IngressHarness.start(configure: { $0.handshakeTimeout = .milliseconds(300) })
        let silent = try await Self.connect(to: harness)
        #expect(try await Self.closes(silent, within: .seconds(10)))
        try await harness.stop()
    }

    @Test func connectionsPastTheLimitAreClosedAndTheOthersKept() async throws {
        let harness = try await IngressHarness.start(configure: { $0.maxConnections = 2 })
        let first = try await Self.connect(to: harness)
        let second = try await Self.connect(to: harness)
        let third = try await Self.connect(to: harness)
        #expect(try await Self.closes(third, within: .seconds(10)), "the third connection was kept")
        #expect(first.isActive && second.isActive, "the two within the limit were closed")
        try await first.close()
        #expect(try await Self.closes(first, within: .seconds(5)))
        // The ingress counts the closed connection out and takes a new one.
        let deadline = ContinuousClock.now + .seconds(5)
        var fourth = try await Self.connect(to: harness)
        while try await Self.closes(fourth, within: .milliseconds(300)), ContinuousClock.now < deadline {
            fourth = try await Self.connect(to: harness)
        }
        #expect(fourth.isActive, "a connection in the freed place was closed")
        for channel in [second, fourth] { try? await channel.close() }
        try await harness.stop()
    }

    @Test func anIdleConnectionIsClosedAfterItsHandshake() async throws {
        let harness = try await IngressHarness.start(configure: { $0.idleTimeout = .milliseconds(500) })
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(harness.caFile))
        tls.applicationProtocols = ["h2"]
        let handshake = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
        let idle = try await Self.connect(
            to: harness, tls: try NIOSSLContext(configuration: tls), handshake: handshake)
        try await handshake.futureResult.get()
        #expect(try await Self.closes(idle, within: .seconds(10)))
        try await harness.stop()
    }
}

/// Completes its promise when the TLS handshake is done.
private final class HandshakeWitness: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let done: EventLoopPromise<Void>?

    init(done: EventLoopPromise<Void>?) { self.done = done }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { done?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done?.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
