import Logging

/// Log metadata keys of the delivery engine, in one place so they stay stable.
enum DeliveryMetadataKey {
    static let worker = "herald.delivery.worker"
    static let workers = "herald.delivery.workers"
    static let keyID = "herald.apns.key_id"
    static let reason = "herald.delivery.reason"
    static let error = "herald.error"
    static let count = "herald.delivery.count"
    static let share = "herald.delivery.burst_share"
    static let pause = "herald.apns.pause"
}
