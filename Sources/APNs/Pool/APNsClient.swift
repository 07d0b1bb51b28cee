public import APNsCore
public import Cryptography
public import Logging

/// Herald's two APNs pools, sandbox and production, sharing one provider token (tokens are per team
/// and key, valid in both environments, and Apple limits renewals per team).
///
/// Connections open on first use, so an environment nobody sends to costs two idle threads.
public final class APNsClient: APNsTransport {
    public let sandbox: APNsConnectionPool
    public let production: APNsConnectionPool

    /// Builds both pools, signing with one provider token source.
    /// - Throws: ``TLSError`` for an unusable TLS configuration (for example an unreadable CA file).
    public init(
        tokens: ProviderTokenSource, sandbox: APNsClientConfiguration, production: APNsClientConfiguration,
        logger: Logger
    ) throws(TLSError) {
        self.sandbox = try APNsConnectionPool(configuration: sandbox, tokens: tokens, logger: logger)
        self.production = try APNsConnectionPool(configuration: production, tokens: tokens, logger: logger)
    }

    /// The pool for `environment`.
    public func transport(for environment: APNsEnvironment) -> any PushTransport {
        environment == .production ? production : sandbox
    }

    /// Sends `request` through the pool for `environment`.
    public func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
        try await transport(for: environment).send(request)
    }

    /// Runs both pools until the calling task is cancelled.
    public func run() async {
        async let sandboxRun: Void = sandbox.run()
        async let productionRun: Void = production.run()
        _ = await (sandboxRun, productionRun)
    }
}
