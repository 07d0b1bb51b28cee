import APNs
import APNsCore
import CoreMetrics
import Cryptography
import HeraldCore
import Logging
import Postgres

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

/// Makes each signing key's client the way the settings' key's is made, for the key router.
struct APNsSigningKeyClients: SigningKeyClients {
    let settings: APNsSettings
    let logger: Logger

    func makeClient(for key: SigningKey, privateKeyPEM: String) throws -> any SigningKeyClient {
        let tokens = ProviderTokenSource(
            key: try P256PrivateKey(pem: privateKeyPEM), keyID: key.keyID, teamID: key.teamID, logger: logger)
        return KeyClient(client: try settings.makeClient(tokens: tokens, logger: logger), tokens: tokens)
    }

    private struct KeyClient: SigningKeyClient {
        let client: APNsClient
        let tokens: any ProviderTokenSharing

        func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
            try await client.send(request, environment: environment)
        }

        func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
            client.send(requests, environment: environment)
        }

        func run() async { await client.run() }
    }
}

extension APNsSettings {
    /// The key router over the settings' key's client, making every other key's client the same way.
    func makeKeyRouter(
        defaultClient: APNsClient, database: PostgresClient, masterKey: AES256GCM?, metrics: any MetricsFactory,
        logger: Logger
    ) -> KeyRouter<ContinuousClock> {
        KeyRouter(
            defaultClient: defaultClient, defaultKey: SigningKeyRef(teamID: teamID, keyID: keyID),
            clients: APNsSigningKeyClients(settings: self, logger: logger), keyIdleLifetime: keyIdleLifetime,
            database: database, masterKey: masterKey, clock: ContinuousClock(), metrics: metrics, logger: logger)
    }
}
