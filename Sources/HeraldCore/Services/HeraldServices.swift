public import APNsCore
public import Postgres

/// The domain services the HTTP API calls, on one database pool.
public struct HeraldServices: Sendable {
    private let client: PostgresClient
    public let directory: Directory
    public let devices: DeviceStore
    /// Registrations go through here, so bursts are written in batches.
    public let registrations: RegistrationBatcher
    public let preferences: PreferenceStore
    public let keys: APIKeyStore
    public let notifications: NotificationStore
    public let votes: FeedbackVoteStore
    public let logs: DeliveryLogStore
    public let interactions: InteractionStore
    public let outbox: OutboxStore
    public let apps: AppStore
    public let signingKeys: SigningKeyStore
    public let liveActivities: LiveActivityTokenStore
    public let serviceTokens: ServiceTokenStore
    /// The broadcast channels on record and their broadcasts, readable in any process.
    public let channelStore: BroadcastChannelStore
    /// Broadcast channels, in a process that sends to APNs; `nil` otherwise.
    public let channels: BroadcastChannels?
    /// Woken after each accepted notification so expansion starts at once in this process; `nil` when another
    /// process expands.
    public let expansion: ExpansionLoop?

    /// - Parameters:
    ///   - limits: The active devices a user keeps, and Live Activity tokens a device keeps.
    ///   - interactionEvents: Told about each interaction recorded (the outcome webhook); nil when none is set.
    public init(
        client: PostgresClient, expansion: ExpansionLoop?, apns: (any APNsTransport)? = nil,
        limits: RegistrationLimits = RegistrationLimits(), interactionEvents: (any DeliveryEventSink)? = nil
    ) {
        self.client = client
        directory = Directory(client: client)
        devices = DeviceStore(client: client, limits: limits)
        registrations = RegistrationBatcher(store: devices)
        preferences = PreferenceStore(client: client)
        keys = APIKeyStore(client: client)
        notifications = NotificationStore(client: client)
        votes = FeedbackVoteStore(client: client)
        logs = DeliveryLogStore(client: client)
        interactions = InteractionStore(client: client, events: interactionEvents)
        outbox = OutboxStore(client: client)
        apps = AppStore(client: client)
        signingKeys = SigningKeyStore(client: client)
        liveActivities = LiveActivityTokenStore(client: client, limits: limits)
        serviceTokens = ServiceTokenStore(client: client)
        channelStore = BroadcastChannelStore(client: client)
        channels = apns.map { BroadcastChannels(client: client, apns: $0) }
        self.expansion = expansion
    }

    /// Answers when the database takes a query; throws when it cannot be reached.
    public func checkDatabase() async throws {
        _ = try await client.query("SELECT 1")
    }
}
