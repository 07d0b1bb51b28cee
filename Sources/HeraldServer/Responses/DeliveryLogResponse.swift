import Foundation
import HeraldCore
import Hummingbird

/// One delivery-log row in the API's field names, ids in lowercase like every other answer. It has no device token
/// field by construction.
struct DeliveryLogItem: Encodable {
    var id: String
    var createdAt: Date
    var userId: String
    var deviceId: String?
    var notificationId: String
    var deliveryId: String
    var type: String
    var status: String
    var feedbackId: String?
    var projectId: String?
    var environment: String
    var attempt: Int
    var httpStatus: Int?
    var reason: String?
    var latencyMs: Double?
    var errorMessage: String?
    /// Apple's apns-unique-id: the push's handle in Apple's Push Notifications Console.
    var apnsUniqueId: String?
    var lane: String?

    init(_ entry: DeliveryLogEntry) {
        id = entry.id.uuidString.lowercased()
        createdAt = entry.createdAt
        userId = entry.userID
        deviceId = entry.deviceID?.uuidString.lowercased()
        notificationId = entry.notificationID.uuidString.lowercased()
        deliveryId = entry.deliveryID.uuidString.lowercased()
        type = entry.type
        status = entry.status
        feedbackId = entry.feedbackID
        projectId = entry.projectID
        environment = entry.environment
        attempt = entry.attempt
        httpStatus = entry.httpStatus
        reason = entry.reason
        latencyMs = entry.latencyMs?.answerTenths
        errorMessage = entry.errorMessage
        apnsUniqueId = entry.apnsUniqueID
        lane = entry.lane?.rawValue
    }
}
