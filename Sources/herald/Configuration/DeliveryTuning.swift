import HeraldCore

/// The delivery engine's tuning; the key and bundle id come from ``APNsSettings``.
struct DeliveryTuning: Sendable {
    var workers: Int?
    var batchSize: Int?
    var maximumAttempts: Int?
    var leaseSeconds: Int?
    var inFlightFloor: Int?
    var inFlightCeiling: Int?
    /// `HERALD_ENGINE_POOL_SIZE`: the sessions of the engine's own pool; unset, ``enginePoolSize`` decides.
    var poolSize: Int?

    /// Every value unset: the engine's defaults.
    init() {}

    init(_ flags: DeliveryOptions, _ settings: SettingSource) throws {
        workers = try settings.positiveInteger(flags.deliveryWorkers, "HERALD_DELIVERY_WORKERS")
        batchSize = try settings.positiveInteger(flags.deliveryBatchSize, "HERALD_DELIVERY_BATCH_SIZE")
        maximumAttempts = try settings.positiveInteger(flags.deliveryMaxAttempts, "HERALD_DELIVERY_MAX_ATTEMPTS")
        leaseSeconds = try settings.positiveInteger(flags.deliveryLeaseSeconds, "HERALD_DELIVERY_LEASE_SECONDS")
        inFlightFloor = try settings.positiveInteger(flags.deliveryInFlightFloor, "HERALD_DELIVERY_IN_FLIGHT_FLOOR")
        inFlightCeiling = try settings.positiveInteger(
            flags.deliveryInFlightCeiling, "HERALD_DELIVERY_IN_FLIGHT_CEILING")
        poolSize = try settings.positiveInteger(flags.enginePoolSize, "HERALD_ENGINE_POOL_SIZE")
    }

    /// The sessions of the pool the engine, the expansion loop and the log's upkeep share, apart from the API's:
    /// the setting, else one per worker, one for the immediate lane's claims, three for the engine's writers, and four
    /// for the router, provider tokens, expansion and the outbox's upkeep.
    var enginePoolSize: Int {
        poolSize ?? (workers ?? DeliveryEngineConfiguration(bundleID: nil).workers) + 8
    }

    /// Only the pool's size: a process that expands but does not send still keeps that work apart from the API.
    init(poolOnly flags: DeliveryOptions, _ settings: SettingSource) throws {
        poolSize = try settings.positiveInteger(flags.enginePoolSize, "HERALD_ENGINE_POOL_SIZE")
    }

    /// The engine configuration for `apns`'s key and bundle id.
    /// - Throws: ``CommandFailure`` when no bundle id is set: the engine has no topic for devices without one.
    func engineConfiguration(for apns: APNsSettings) throws -> DeliveryEngineConfiguration {
        guard let bundleID = apns.bundleID else {
            throw CommandFailure("no topic: set APNS_BUNDLE_ID or pass --apns-bundle-id")
        }
        var configuration = DeliveryEngineConfiguration(bundleID: bundleID, keyID: apns.keyID)
        if let workers { configuration.workers = workers }
        if let batchSize { configuration.batchSize = batchSize }
        if let maximumAttempts { configuration.policy.maximumAttempts = maximumAttempts }
        if let leaseSeconds { configuration.lease = .seconds(leaseSeconds) }
        if inFlightFloor != nil || inFlightCeiling != nil {
            let defaults = configuration.inFlight
            configuration.inFlight = InFlightLimit.Bounds(
                floor: inFlightFloor ?? defaults.floor, ceiling: inFlightCeiling ?? defaults.ceiling,
                headroom: defaults.headroom)
        }
        return configuration
    }
}
