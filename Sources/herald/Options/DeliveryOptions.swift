import ArgumentParser
import Foundation
import HeraldCore

/// The delivery engine's tuning as flags over `HERALD_DELIVERY_*` variables over defaults.
struct DeliveryOptions: ParsableArguments {
    @Option(help: "Claim loops (env HERALD_DELIVERY_WORKERS; default 4).") var deliveryWorkers: Int?
    @Option(help: "Deliveries claimed per batch (env HERALD_DELIVERY_BATCH_SIZE; default 500).")
    var deliveryBatchSize: Int?
    @Option(help: "Attempts before a retryable failure is final (env HERALD_DELIVERY_MAX_ATTEMPTS; default 8).")
    var deliveryMaxAttempts: Int?
    @Option(
        help: "Seconds a claim is held before others take it over (env HERALD_DELIVERY_LEASE_SECONDS; default 120).")
    var deliveryLeaseSeconds: Int?

    func validate() throws {
        let flags = [
            ("--delivery-workers", deliveryWorkers), ("--delivery-batch-size", deliveryBatchSize),
            ("--delivery-max-attempts", deliveryMaxAttempts), ("--delivery-lease-seconds", deliveryLeaseSeconds),
        ]
        for case (let name, let value?) in flags where value < 1 {
            throw ValidationError("\(name) must be a positive whole number")
        }
    }

    /// The engine configuration for a key and bundle id.
    func configuration(bundleID: String?, keyID: String, environment: [String: String]) throws
        -> DeliveryEngineConfiguration
    {
        func value(_ flag: Int?, _ variable: String) throws -> Int? {
            if let flag { return flag }
            guard let text = environment[variable], !text.isEmpty else { return nil }
            guard let parsed = Int(text), parsed > 0 else {
                throw CommandFailure("\(variable) must be a positive whole number")
            }
            return parsed
        }
        var configuration = DeliveryEngineConfiguration(bundleID: bundleID, keyID: keyID)
        if let workers = try value(deliveryWorkers, "HERALD_DELIVERY_WORKERS") { configuration.workers = workers }
        if let size = try value(deliveryBatchSize, "HERALD_DELIVERY_BATCH_SIZE") { configuration.batchSize = size }
        if let attempts = try value(deliveryMaxAttempts, "HERALD_DELIVERY_MAX_ATTEMPTS") {
            configuration.policy.maximumAttempts = attempts
        }
        if let lease = try value(deliveryLeaseSeconds, "HERALD_DELIVERY_LEASE_SECONDS") {
            configuration.lease = .seconds(lease)
        }
        return configuration
    }
}
