import Foundation
import HeraldCore
import Hummingbird

/// The answer to an accepted event or notification.
struct AcceptedResponse: ResponseEncodable {
    var id: String

    init(id: UUID) { self.id = id.uuidString.lowercased() }
}

/// `GET /notifications/{id}`: state and counts.
struct NotificationStatusResponse: ResponseEncodable {
    struct Counts: Encodable {
        var total: Int
        var byState: [String: Int]
    }

    struct Suppressed: Encodable {
        var total: Int
        var byReason: [String: Int]
    }

    var id: String
    var kind: String
    var type: String
    var projectId: String?
    var state: String
    var sendAt: Date
    var expiresAt: Date?
    var createdAt: Date
    var expandedAt: Date?
    var canceledAt: Date?
    var tags: [String]
    var lane: String
    var deliveries: Counts
    var suppressed: Suppressed

    init(_ status: NotificationStatus) {
        id = status.id.uuidString.lowercased()
        kind = status.kind
        type = status.type
        projectId = status.project
        state = status.state
        sendAt = status.sendAt
        expiresAt = status.expiresAt
        createdAt = status.createdAt
        expandedAt = status.expandedAt
        canceledAt = status.canceledAt
        tags = status.tags.map(\.rawValue)
        lane = status.lane.rawValue
        deliveries = Counts(total: status.deliveries.values.reduce(0, +), byState: status.deliveries)
        suppressed = Suppressed(total: status.suppressions.values.reduce(0, +), byReason: status.suppressions)
    }
}
