import APNs
import APNsCore
import CoreMetrics
import Cryptography
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import Postgres
import ServiceLifecycle

/// The delivery engine with its APNs client (sandbox and production side by side), the fleet's shared provider
/// token, the key router that signs each push with a key of its app's team, and the webhook, wired from settings:
/// what `herald worker` runs alone and `herald serve` runs beside the API.
struct DeliveryRuntime {
    let engine: DeliveryEngine
    let apns: APNsClient
    let tokens: ProviderTokenCoordinator
    /// Chooses each push's signing key; the engine sends through it.
    let router: KeyRouter<ContinuousClock>
    private let defaults: SingleAppDefaults

    init(
        client: PostgresClient, settings: APNsSettings, configuration: DeliveryEngineConfiguration,
        webhook webhookConfiguration: DeliveryWebhook.Configuration?, masterKey: AES256GCM?,
        metrics factory: any MetricsFactory, logger: Logger
    ) throws {
        let source = try settings.makeTokenSource(logger: logger)
        apns = try settings.makeClient(tokens: source, logger: logger)
        tokens = ProviderTokenCoordinator(store: ProviderTokenStore(client: client), source: source, logger: logger)
        defaults = SingleAppDefaults(client: client, settings: settings, logger: logger)
        router = settings.makeKeyRouter(
            defaultClient: apns, database: client, masterKey: masterKey, metrics: factory, logger: logger)
        let webhook = webhookConfiguration.map { DeliveryWebhook(configuration: $0, logger: logger) }
        let metrics = DeliveryMetrics(factory: factory)
        metrics.setConnections(settings.connections * 2)
        engine = DeliveryEngine(
            client: client, apns: router, configuration: configuration, metrics: metrics, webhook: webhook,
            logger: logger)
    }

    /// Records the default app and key from the `APNS_*` settings. `herald serve` awaits it before it listens, so
    /// that a request naming the default app never arrives before the app exists.
    func defineDefaults() async {
        await defaults.define()
    }

    /// Reads the apps and keys, and adopts the fleet's provider token, before the first push: a restarted or added
    /// process then sends with the token the others use rather than a new one Apple may refuse.
    func prepare() async {
        try? await router.refresh()
        try? await tokens.synchronize()
    }

    /// The services in the order they start; a service group stops them in reverse: the engine first (it stops
    /// claiming and finishes or releases what is in flight), then the router with every key's connections, the
    /// token renewal, and last the settings' key's connections.
    var services: [any Service] { [apns, tokens, router, engine] }
}

/// The single-app settings (`APNS_BUNDLE_ID`, `APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_KEY_PATH`, `APNS_PRODUCTION`) as
/// data: the default app and its signing key, defined (or brought up to date) by every delivering start-up, so an
/// installation configured the way it always was keeps working and its devices belong to the default app.
struct SingleAppDefaults {
    let client: PostgresClient
    let settings: APNsSettings
    let logger: Logger

    func define() async {
        do {
            if let bundleID = settings.bundleID {
                let app = try await AppStore(client: client).defineDefault(
                    bundleID: bundleID, teamID: settings.teamID,
                    environment: PushEnvironment(settings.defaultEnvironment))
                logger.info("default app \(app.externalID) is \(app.bundleID) on team \(app.teamID)")
            }
            _ = try await SigningKeyStore(client: client).defineDefault(
                teamID: settings.teamID, keyID: settings.keyID, keyPath: settings.keyPath)
        } catch {
            logger.error(
                "cannot record the default app and key from APNS_* settings; delivery continues with the settings",
                metadata: ["error": "\(error)"])
        }
    }
}
