import Foundation
import HeraldCore
import Hummingbird

/// `GET /notifications/{id}/deliveries`: each device's delivery and each skipped recipient with its reason.
struct NotificationDeliveriesResponse: ResponseEncodable {
    struct Delivery: Encodable {
        var id: String
        var userId: String
        var deviceId: String
        var environment: String
        var state: String
        var attempts: Int
        var lastStatus: Int?
        var lastReason: String?
        var nextAttemptAt: Date
        /// When a delivery held by quiet hours goes out; absent otherwise.
        var releaseAt: Date?
        var updatedAt: Date
        var finishedAt: Date?
        /// Apple's apns-unique-id of the answer that finished it: its handle in Apple's Push Notifications Console.
        var apnsUniqueId: String?
    }

    struct Suppressed: Encodable {
        var userId: String
        /// The device skipped when the recipient was reached on others; absent when the recipient got nothing.
        var deviceId: String?
        var reason: String
        var createdAt: Date
    }

    var notificationId: String
    var state: String
    var lane: String
    var deliveries: [Delivery]
    var suppressed: [Suppressed]

    init(_ report: NotificationDeliveries) {
        notificationId = report.notificationID.uuidString.lowercased()
        state = report.state
        lane = report.lane.rawValue
        deliveries = report.deliveries.map {
            Delivery(
                id: $0.id.uuidString.lowercased(), userId: $0.userID, deviceId: $0.deviceID.uuidString.lowercased(),
                environment: $0.environment, state: $0.state, attempts: $0.attempts, lastStatus: $0.lastStatus,
                lastReason: $0.lastReason, nextAttemptAt: $0.nextAttemptAt,
                releaseAt: $0.state == DeliveryState.deferred.rawValue ? $0.nextAttemptAt : nil,
                updatedAt: $0.updatedAt,
                finishedAt: $0.finishedAt, apnsUniqueId: $0.apnsUniqueID)
        }
        suppressed = report.suppressions.map {
            Suppressed(
                userId: $0.userID, deviceId: $0.deviceID?.uuidString.lowercased(), reason: $0.reason,
                createdAt: $0.createdAt)
        }
    }
}
