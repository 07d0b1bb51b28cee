public import HeraldCore
public import Postgres

/// The domain services the routes call, on one database pool.
public struct HeraldServices: Sendable {
    public let client: PostgresClient
    public let directory: Directory
    public let devices: DeviceStore
    /// Registrations go through here, so bursts are written in batches.
    public let registrations: RegistrationBatcher
    public let preferences: PreferenceStore
    public let keys: APIKeyStore
    public let notifications: NotificationStore
    /// Woken after each accepted notification so expansion starts at once in this process; `nil` when another
    /// process expands.
    public let expansion: ExpansionLoop?

    public init(client: PostgresClient, expansion: ExpansionLoop?) {
        self.client = client
        directory = Directory(client: client)
        devices = DeviceStore(client: client)
        registrations = RegistrationBatcher(store: devices)
        preferences = PreferenceStore(client: client)
        keys = APIKeyStore(client: client)
        notifications = NotificationStore(client: client)
        self.expansion = expansion
    }
}
