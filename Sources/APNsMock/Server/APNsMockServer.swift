import Crypto
import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local stand-in for Apple's push servers: TLS with a run-time certificate, HTTP/2 via
/// swift-nio-http2 (a different stack from Herald's client, so each checks the other), Apple's header
/// and token rules, scripted answers, fault injection, and a record of every request.
public final class APNsMockServer: Sendable {
    public let configuration: APNsMockConfiguration
    /// The CA clients must trust; write it out with ``MockCertificateAuthority/writeCACertificate(to:)``.
    public let certificateAuthority: MockCertificateAuthority
    private let state: MockState
    private let validator: MockRequestValidator
    private let sslContext: NIOSSLContext
    private let channel = Mutex<(any Channel)?>(nil)
    /// Accepted connections still open, by object identity, so ``stop()`` can close them.
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Prepares the server (certificates, keys); ``start()`` binds it.
    /// - Throws: When a configured key is not a P-256 PEM key, or TLS setup fails.
    public init(configuration: APNsMockConfiguration) throws {
        self.configuration = configuration
        certificateAuthority = try MockCertificateAuthority(serverNames: configuration.serverNames)
        var keys: [String: MockTokenVerifier.TeamKey] = [:]
        let teams = [configuration.teamID: configuration.keys].merging(configuration.otherTeams) { own, _ in own }
        for (teamID, teamKeys) in teams {
            for (keyID, pem) in teamKeys {
                let key =
                    if pem.contains("PRIVATE KEY") {
                        try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
                    } else {
                        try P256.Signing.PublicKey(pemRepresentation: pem)
                    }
                keys[keyID] = MockTokenVerifier.TeamKey(teamID: teamID, key: key)
            }
        }
        state = MockState(recordsRequests: configuration.recordsRequests, onRequest: configuration.onRequest)
        validator = MockRequestValidator(
            bundleIDs: configuration.bundleIDs, tokenKinds: configuration.tokenKinds,
            tokens: MockTokenVerifier(
                keys: keys, limitsUpdates: configuration.limitsTokenUpdates,
                now: configuration.now),
            channels: MockChannels())
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificateAuthority.serverCertificate)],
            privateKey: .privateKey(certificateAuthority.serverKey))
        tls.applicationProtocols = configuration.applicationProtocols
        tls.minimumTLSVersion = .tlsv12
        sslContext = try NIOSSLContext(configuration: tls)
    }

    /// The bound port (the configured one, or the one the system picked for port 0).
    public var port: Int { channel.withLock { $0?.localAddress?.port } ?? configuration.port }

    /// Binds and starts accepting connections.
    public func start() async throws {
        let state = state
        let validator = validator
        let sslContext = sslContext
        let speaksHTTP2 = configuration.applicationProtocols.contains("h2")
        let initialLimit = configuration.initialMaxConcurrentStreams
        let raisedLimit = configuration.raisedMaxConcurrentStreams
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                let key = ObjectIdentifier(channel)
                connections.withLock { $0[key] = channel }
                channel.closeFuture.whenComplete { _ in _ = self.connections.withLock { $0.removeValue(forKey: key) } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    // A server without h2 in its ALPN list stops after the handshake, like a plain HTTPS server.
                    guard speaksHTTP2 else { return }
                    let connection = MockConnection(
                        id: state.nextConnectionID(), state: state, raisedLimit: raisedLimit)
                    connection.attach(channel)
                    var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
                    connectionConfiguration.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: initialLimit),
                        HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
                    ]
                    connectionConfiguration.maximumRecentlyResetStreams = 4096
                    var streamConfiguration = NIOHTTP2Handler.StreamConfiguration()
                    streamConfiguration.targetWindowSize = 1 << 20
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connectionConfiguration,
                        streamConfiguration: streamConfiguration, streamDelegate: connection
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(
                                MockStreamHandler(connection: connection, state: state, validator: validator))
                        }
                    }
                }
            }
        let bound = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        channel.withLock { $0 = bound }
    }

    /// Stops accepting connections, closes the listening socket and every open connection.
    public func stop() async throws {
        let bound = channel.withLock { $0 }
        try await bound?.close()
        for open in connections.withLock({ Array($0.values) }) {
            try? await open.close()
        }
    }

    // MARK: Scripting and faults

    /// Answers requests whose device token starts with `prefix` with `verdict` (after the normal checks pass).
    public func script(deviceTokenPrefix prefix: String, _ verdict: MockVerdict) {
        state.script(prefix: prefix, verdict: verdict)
    }

    /// Forgets every scripted verdict: the mock answers as Apple would again.
    public func clearScripts() {
        state.clearScripts()
    }

    /// Sends GOAWAY on the connection that writes the `count`-th response (counted from the start), once.
    public func injectGoAway(afterResponses count: Int) {
        state.updateFaults { $0.goAwayAfterResponses = count }
    }

    /// Drops the connection that writes the `count`-th response (counted from the start), once.
    public func injectConnectionDrop(afterResponses count: Int) {
        state.updateFaults { $0.dropAfterResponses = count }
    }

    /// Kills the whole connection whenever a push to device `token` arrives on it: GOAWAY with `PROTOCOL_ERROR` and
    /// last stream 0, then close, as a server does over a header it cannot take. Counted in
    /// ``killedConnectionCount``.
    public func killConnections(onDeviceToken token: String) {
        state.updateFaults { $0.killingTokens.insert(token.lowercased()) }
    }

    /// Delays every response.
    public func setResponseDelay(_ delay: Duration) {
        state.updateFaults { $0.responseDelay = delay }
    }

    // MARK: Observations

    /// Every answered request, in answer order (when ``APNsMockConfiguration/recordsRequests``).
    public var recordedRequests: [MockRecordedRequest] { state.records }
    /// Responses written so far.
    public var responseCount: Int { state.responseCount }
    /// The most streams open at once on any one connection.
    public var peakConcurrentStreams: Int { state.peakConcurrentStreams }
    /// TCP connections accepted so far.
    public var connectionCount: Int { state.connectionCount }
    /// Connections killed so far by ``killConnections(onDeviceToken:)``.
    public var killedConnectionCount: Int { state.killedConnectionCount }
    /// Broadcast channels that exist now, over every app.
    public var channelCount: Int { validator.channels.count }

    /// Caps the channels one app may have (Apple's limit is 10,000), for `CannotCreateChannelConfig`.
    public func limitChannels(to limit: Int) { validator.channels.setLimit(limit) }

    /// Answers `FeatureNotEnabled` to broadcasts and channel requests of `bundleID`.
    public func disableBroadcasts(for bundleID: String) { validator.channels.disable(bundleID: bundleID) }

    /// TCP connections open now.
    public var openConnectionCount: Int { connections.withLock { $0.count } }
}
