public import APNsCore
public import Cryptography
public import Logging
public import ServiceLifecycle

/// Herald's APNs pools for one signing key: devices, broadcasts and channel management, each in sandbox and
/// production, sharing one provider token (tokens are per team and key, valid in every environment and on every
/// host, and Apple limits renewals per team).
///
/// Connections open on first use, so a pool nobody sends to costs only its idle threads.
public final class APNsClient: APNsTransport, Service {
    /// Where broadcasts and channel operations go in each environment.
    public struct ChannelEndpoints: Sendable, Hashable {
        public var broadcastSandbox: APNsEndpoint
        public var broadcastProduction: APNsEndpoint
        public var managementSandbox: APNsEndpoint
        public var managementProduction: APNsEndpoint

        public init(
            broadcastSandbox: APNsEndpoint, broadcastProduction: APNsEndpoint, managementSandbox: APNsEndpoint,
            managementProduction: APNsEndpoint
        ) {
            self.broadcastSandbox = broadcastSandbox
            self.broadcastProduction = broadcastProduction
            self.managementSandbox = managementSandbox
            self.managementProduction = managementProduction
        }

        /// Apple's hosts: broadcasts on the push hosts (port 443), channel management on
        /// `api-manage-broadcast(.sandbox).push.apple.com` (ports 2195 and 2196).
        public static let apple = ChannelEndpoints(
            broadcastSandbox: APNsEndpoint(environment: .sandbox),
            broadcastProduction: APNsEndpoint(environment: .production),
            managementSandbox: APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195),
            managementProduction: APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196))
    }

    public let sandbox: APNsConnectionPool
    public let production: APNsConnectionPool
    private let broadcastSandbox: APNsConnectionPool
    private let broadcastProduction: APNsConnectionPool
    private let managementSandbox: APNsConnectionPool
    private let managementProduction: APNsConnectionPool

    /// Builds every pool, signing with one provider token source. Broadcast and management pools keep one
    /// connection each and otherwise take the settings of the device pool of their environment.
    /// - Throws: ``TLSError`` for an unusable TLS configuration (for example an unreadable CA file).
    public init(
        tokens: ProviderTokenSource, sandbox: APNsClientConfiguration, production: APNsClientConfiguration,
        channels: ChannelEndpoints = .apple, logger: Logger
    ) throws(TLSError) {
        func single(_ configuration: APNsClientConfiguration, at endpoint: APNsEndpoint) throws(TLSError)
            -> APNsConnectionPool
        {
            var configuration = configuration
            configuration.endpoint = endpoint
            configuration.connectionCount = 1
            return try APNsConnectionPool(configuration: configuration, tokens: tokens, logger: logger)
        }
        self.sandbox = try APNsConnectionPool(configuration: sandbox, tokens: tokens, logger: logger)
        self.production = try APNsConnectionPool(configuration: production, tokens: tokens, logger: logger)
        broadcastSandbox = try single(sandbox, at: channels.broadcastSandbox)
        broadcastProduction = try single(production, at: channels.broadcastProduction)
        managementSandbox = try single(sandbox, at: channels.managementSandbox)
        managementProduction = try single(production, at: channels.managementProduction)
    }

    /// The device pool for `environment`.
    public func transport(for environment: APNsEnvironment) -> any PushTransport {
        environment == .production ? production : sandbox
    }

    /// Sends `request` through the pool for its destination and `environment`.
    public func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
        let production = environment == .production
        switch request.destination {
        case .device: return try await (production ? self.production : sandbox).send(request)
        case .channel: return try await (production ? broadcastProduction : broadcastSandbox).send(request)
        case .channels: return try await (production ? managementProduction : managementSandbox).send(request)
        }
    }

    /// Sends device pushes as one batch through `environment`'s device pool; a batch with any other destination
    /// goes one push at a time through ``send(_:environment:)-(PushRequest,_)``.
    public func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
        guard requests.allSatisfy({ $0.deviceToken != nil }) else {
            return PushAnswers.concurrently(requests) { try await self.send($0, environment: environment) }
        }
        return (environment == .production ? production : sandbox).send(requests)
    }

    /// Runs every pool until the calling task is cancelled or the service group shuts down.
    public func run() async {
        let pools = [
            sandbox, production, broadcastSandbox, broadcastProduction, managementSandbox, managementProduction,
        ]
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for pool in pools { group.addTask { await pool.run() } }
            }
        }
    }
}
