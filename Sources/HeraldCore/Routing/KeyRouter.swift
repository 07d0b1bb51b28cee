public import APNsCore
public import CoreMetrics
public import Cryptography
public import Logging
public import Postgres
public import ServiceLifecycle
import Synchronization

/// Sends each push with a signing key of its app's team that may sign for its topic and environment (the engine
/// sends through it). The apps and keys on record are read every few seconds and at once on `NOTIFY`; each key gets
/// its own client and fleet-shared provider token on first use, made by the injected ``SigningKeyClients``.
///
/// A key whose refusal ``APNsCore/RejectionConsequence/refuseKey`` names is paused alone and the push goes out with
/// the team's next key; when the last key is refused too, the refusal reaches the engine, which pauses sending as a
/// whole. A push no key may sign fails as `noSigningKey`, which retries that delivery later without holding up other
/// apps. A key's connections close once nothing has been sent with it for `keyIdleLifetime`, and, when the key is
/// retired, as soon as the pushes in flight on them have their answers; its token renewal stops at once.
public final class KeyRouter<C: Clock>: APNsTransport, Service where C.Duration == Duration, C.Instant: Sendable {
    public static var refreshInterval: Duration { .seconds(5) }
    public static var keyPause: Duration { .seconds(60) }

    /// A key's client while it is open: made on first use, its connections and token renewal running, and how
    /// many sends are using it.
    struct OpenClient {
        let making: Task<(any SigningKeyClient)?, Never>
        var connections: Task<Void, Never>?
        var renewal: Task<Void, Never>?
        var inFlight = 0
        var lastUsed: C.Instant

        func stop() {
            connections?.cancel()
            renewal?.cancel()
        }
    }

    struct State {
        var table: KeyRoutingTable<C.Instant>
        var clients: [SigningKeyRef: OpenClient] = [:]
    }

    let defaultClient: any APNsTransport
    let defaultKey: SigningKeyRef
    let clients: any SigningKeyClients
    let keyIdleLifetime: Duration
    let database: PostgresClient
    let masterKey: AES256GCM?
    let clock: C
    let metrics: any MetricsFactory
    let logger: Logger
    let state: Mutex<State>
    private let changes = Doorbell()

    /// - Parameters:
    ///   - defaultClient: The settings' key's client, which its owner runs; it signs every push until the first read.
    ///   - clients: Makes the client of every other key.
    ///   - database: Where the apps, keys and shared provider tokens are, and where changes are announced.
    public init(
        defaultClient: any APNsTransport, defaultKey: SigningKeyRef, clients: any SigningKeyClients,
        keyIdleLifetime: Duration, database: PostgresClient, masterKey: AES256GCM?, clock: C,
        metrics: any MetricsFactory, logger: Logger
    ) {
        self.defaultClient = defaultClient
        self.defaultKey = defaultKey
        self.clients = clients
        self.keyIdleLifetime = keyIdleLifetime
        self.database = database
        self.masterKey = masterKey
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        state = Mutex(State(table: KeyRoutingTable(defaultKey: defaultKey)))
    }

    /// Reads the apps and active keys; until the first read succeeds every push goes out with the default key.
    public func refresh() async throws {
        let apps = try await AppStore(client: database).list()
        let store = SigningKeyStore(client: database)
        let keys = try await store.activeKeys().map {
            KeyRoutingTable<C.Instant>.Route(key: $0.key, material: $0.material)
        }
        state.withLock { $0.table.load(apps: apps, keys: keys) }
        for key in try await store.settleRetirements() {
            logger.notice(
                """
                signing key \(key.teamID)/\(key.keyID) is retired: no token it signed is still valid, so revoking it \
                at Apple cannot fail a push
                """,
                metadata: ["herald.apns.key_id": "\(key.keyID)", "herald.apns.team_id": "\(key.teamID)"])
        }
    }

    /// Refreshes (every few seconds, and at once when told of a change) and closes clients no longer needed until
    /// cancelled or the service group shuts down, then stops every client it made.
    public func run() async {
        let listener = NotificationListener(
            configuration: database.configuration, channels: [HeraldChannel.signingKeys],
            subject: "changed signing keys", logger: logger)
        await cancelWhenGracefulShutdown { [changes] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listener.run { _ in changes.ring() } }
                await self.refreshUntilCancelled()
                group.cancelAll()
            }
        }
        stopClients()
    }

    /// Stops every key client the router made: their connections and token renewal.
    func stopClients() {
        for client in state.withLock({ Array($0.clients.values) }) { client.stop() }
    }

    private func refreshUntilCancelled() async {
        while !Task.isCancelled {
            let seen = changes.generation
            do {
                try await refresh()
            } catch {
                logger.warning(
                    "cannot read the apps and signing keys; keeping the last ones", metadata: ["error": "\(error)"])
            }
            closeUnneededClients()
            await changes.wait(after: seen, timeout: Self.refreshInterval)
        }
    }

    /// The keys to try, best first; nil before the first read. Ends the pauses that are over.
    func candidates(topic: String, environment: APNsEnvironment) -> [KeyRoutingTable<C.Instant>.Route]? {
        let now = clock.now
        let (routes, resumed) = state.withLock { state in
            let resumed = state.table.endPauses(at: now)
            return (state.table.candidates(topic: topic, environment: PushEnvironment(environment), now: now), resumed)
        }
        for key in resumed { pausedGauge(key).record(0) }
        return routes
    }

    func pause(_ key: SigningKeyRef, reason: APNsReason) {
        let until = clock.now.advanced(by: Self.keyPause)
        state.withLock { $0.table.pause(key, until: until) }
        pausedGauge(key).record(1)
        Task { [database, logger] in
            do {
                try await SigningKeyStore(client: database).recordRefusal(
                    teamID: key.teamID, keyID: key.keyID, reason: "\(reason)", pausedFor: Self.keyPause)
            } catch {
                logger.warning("recording a signing key's pause failed", metadata: ["herald.error": "\(error)"])
            }
        }
        logger.error(
            """
            APNs refused signing key \(key) (\(reason)); pausing that key for \(Int(Self.keyPause.seconds)) s and \
            sending with the team's next key
            """,
            metadata: ["herald.apns.key_id": "\(key.keyID)", "herald.apns.team_id": "\(key.teamID)"])
    }

    /// `herald_apns_key_paused{key="TEAM/KEY"}`: 1 while the router holds a refused or unusable key back.
    func pausedGauge(_ key: SigningKeyRef) -> Gauge {
        Gauge(label: "herald_apns_key_paused", dimensions: [("key", key.description)], factory: metrics)
    }
}
