public import APNsCore

/// One signing key's connections to Apple, made by ``SigningKeyClients``.
public protocol SigningKeyClient: APNsTransport {
    /// The key's provider token, which the fleet shares through ``ProviderTokenCoordinator``.
    var tokens: any ProviderTokenSharing { get }
    /// Keeps the connections until the task is cancelled.
    func run() async
}

/// Makes the client of a signing key from its private key: `herald` makes them with the `APNs` module, tests with
/// fakes, so the router's rules are tested without sockets.
public protocol SigningKeyClients: Sendable {
    func makeClient(for key: SigningKey, privateKeyPEM: String) throws -> any SigningKeyClient
}
