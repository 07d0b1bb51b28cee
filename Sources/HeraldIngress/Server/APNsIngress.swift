import Foundation
public import HeraldCore
public import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
public import ServiceLifecycle
import Synchronization

/// Apple's provider API, served to APNs clients: HTTP/2 over TLS with ALPN `h2`, `POST /3/device/{token}` with Apple's
/// headers, answered in Apple's form. Each push is stored as a notification of type `apns` with one delivery, which
/// the delivery engine sends like any other, and the client is answered with Apple's final answer for it (or as
/// ``IngressConfiguration/Mode`` says).
///
/// A `Service`: it listens until graceful shutdown, then stops accepting connections, lets the requests in flight be
/// answered (at most the wait, plus a few seconds), and closes what is left.
public final class APNsIngress: Service, Sendable {
    private let configuration: IngressConfiguration
    private let store: IngressStore
    private let apiKeys: APIKeyStore
    private let logger: Logger
    private let sslContext: NIOSSLContext
    private let onListening: @Sendable (Int) async -> Void
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Loads the certificate and key, so a wrong file fails the start of the command, not the first connection.
    /// - Parameters:
    ///   - store: Where the pushes are stored, and their answers read from.
    ///   - apiKeys: The API keys clients may authenticate with instead of a provider token.
    ///   - onListening: Called with the bound port once the ingress listens.
    /// - Throws: When the certificate or key cannot be read.
    public init(
        configuration: IngressConfiguration, store: IngressStore, apiKeys: APIKeyStore, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.store = store
        self.apiKeys = apiKeys
        self.logger = logger
        self.onListening = onListening
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(configuration.certificateFile).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: configuration.privateKeyFile, format: .pem)))
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        sslContext = try NIOSSLContext(configuration: tls)
    }

    public func run() async throws {
        let waiters = RelayWaiters(store: store, interval: configuration.answerPollInterval, logger: logger)
        let catalog = IngressCatalog(
            store: store, masterKey: configuration.masterKey, lifetime: configuration.catalogLifetime, logger: logger)
        let relay = IngressRelay(
            credentials: IngressCredentials(
                catalog: catalog, tokens: ProviderTokenVerifier(),
                apiKeys: APIKeyLookups(
                    store: apiKeys,
                    pacer: LookupPacer(
                        perSecond: configuration.newKeyLookupsPerSecond, burst: configuration.newKeyLookupBurst),
                    lifetime: configuration.apiKeyLifetime)),
            store: store, waiters: waiters, user: try await store.prepare(), mode: configuration.mode,
            wait: configuration.wait, logger: logger)
        let inFlight = InFlightRequests()
        let server = try await bind(inFlight: inFlight) { await relay.answer($0) }
        let port = server.localAddress?.port ?? configuration.port
        logger.notice("the APNs ingress listens on \(configuration.host):\(port) (\(configuration.mode.rawValue) mode)")
        await onListening(port)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await waiters.run() }
            try? await gracefulShutdown()
            try? await server.close()
            await inFlight.drained(by: .now + configuration.wait + .seconds(5))
            for connection in connections.withLock({ Array($0.values) }) { try? await connection.close() }
            group.cancelAll()
        }
    }

    /// Binds the listening socket: TLS, then HTTP/2 with Apple's stream limit, one ``IngressStreamHandler`` per stream;
    /// a connection beyond the limit, slow to finish its handshake or idle too long is closed (``ConnectionTimeouts``).
    private func bind(
        inFlight: InFlightRequests, answer: @escaping @Sendable (IngressRequest) async -> IngressAnswer
    ) async throws -> any Channel {
        let sslContext = sslContext
        var connectionSettings = NIOHTTP2Handler.ConnectionConfiguration()
        connectionSettings.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
        ]
        let settings = connectionSettings
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                guard admit(channel) else {
                    logger.debug("closing a new connection: the ingress has as many open as it takes")
                    return channel.eventLoop.makeFailedFuture(ConnectionTimeouts.Refusal.tooManyConnections)
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(allTimeout: TimeAmount(configuration.idleTimeout)))
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionTimeouts(handshake: TimeAmount(configuration.handshakeTimeout)))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: settings,
                        streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(
                                IngressStreamHandler(inFlight: inFlight, answer: answer))
                        }
                    }
                }
            }
        return try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
    }

    /// Keeps `channel` among the open connections until it closes, so stopping can close it; false, keeping nothing,
    /// when ``IngressConfiguration/maxConnections`` are open already.
    private func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let admitted = connections.withLock { connections in
            guard connections.count < configuration.maxConnections else { return false }
            connections[key] = channel
            return true
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in _ = connections.withLock { $0.removeValue(forKey: key) } }
        return true
    }
}
