import ArgumentParser

/// The delivery engine's tuning as flags; ``DeliveryTuning`` adds the `HERALD_DELIVERY_*` variables and defaults.
struct DeliveryOptions: ParsableArguments {
    @Option(help: "Claim loops (env HERALD_DELIVERY_WORKERS; default 4).") var deliveryWorkers: Int?
    @Option(help: "Deliveries claimed per batch (env HERALD_DELIVERY_BATCH_SIZE; default 500).")
    var deliveryBatchSize: Int?
    @Option(help: "Attempts before a retryable failure is final (env HERALD_DELIVERY_MAX_ATTEMPTS; default 8).")
    var deliveryMaxAttempts: Int?
    @Option(
        help: "Seconds a claim is held before others take it over (env HERALD_DELIVERY_LEASE_SECONDS; default 120).")
    var deliveryLeaseSeconds: Int?
    @Option(
        help: ArgumentHelp(
            "Pushes that may always be sent and not yet recorded, whatever the measured link "
                + "(env HERALD_DELIVERY_IN_FLIGHT_FLOOR; default 64)."))
    var deliveryInFlightFloor: Int?
    @Option(
        help: ArgumentHelp(
            "Pushes that may never be sent and not yet recorded at once: the most a crash sends twice "
                + "(env HERALD_DELIVERY_IN_FLIGHT_CEILING; default 2000, at most workers × batch size)."))
    var deliveryInFlightCeiling: Int?
    @Option(
        help: ArgumentHelp(
            "Database sessions of the engine and expansion, apart from the API's (env HERALD_ENGINE_POOL_SIZE; "
                + "default delivery workers + 8)."))
    var enginePoolSize: Int?

    func validate() throws {
        let flags = [
            ("--delivery-workers", deliveryWorkers), ("--delivery-batch-size", deliveryBatchSize),
            ("--delivery-max-attempts", deliveryMaxAttempts), ("--delivery-lease-seconds", deliveryLeaseSeconds),
            ("--delivery-in-flight-floor", deliveryInFlightFloor),
            ("--delivery-in-flight-ceiling", deliveryInFlightCeiling),
            ("--engine-pool-size", enginePoolSize),
        ]
        for case (let name, let value?) in flags where value < 1 {
            throw ValidationError("\(name) must be a positive whole number")
        }
    }
}
