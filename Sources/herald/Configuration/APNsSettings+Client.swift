import APNs
import APNsCore
import Cryptography
import Logging

extension APNsSettings {
    /// The pool configuration for one environment.
    func clientConfiguration(for environment: APNsEnvironment) -> APNsClientConfiguration {
        APNsClientConfiguration(
            endpoint: endpoint(for: environment), connectionCount: connections,
            tls: TLSClientConfiguration(additionalCAFile: caFile))
    }

    /// Loads the `.p8` key and makes the team's shared provider token source.
    /// - Throws: ``KeyError`` when the key file is missing or not a P-256 key.
    func makeTokenSource(logger: Logger) throws(KeyError) -> ProviderTokenSource {
        ProviderTokenSource(
            key: try P256PrivateKey(contentsOfFile: keyPath), keyID: keyID, teamID: teamID, logger: logger)
    }

    /// The sandbox and production pools, sharing the team's provider token from `tokens`.
    /// - Throws: `TLSError` for an unusable CA file.
    func makeClient(tokens: ProviderTokenSource, logger: Logger) throws -> APNsClient {
        try APNsClient(
            tokens: tokens, sandbox: clientConfiguration(for: .sandbox),
            production: clientConfiguration(for: .production), channels: channels, logger: logger)
    }
}
