public import Foundation

/// Which delivery-log rows to list (`herald logs`, `GET /api/v1/logs`). Nil fields do not filter.
public struct DeliveryLogFilter: Sendable, Hashable {
    /// The user's external id.
    public var userID: String?
    public var deviceID: UUID?
    /// The project's external id.
    public var projectID: String?
    public var notificationID: UUID?
    /// The notification type (`new_feedback`, …).
    public var type: String?
    public var status: DeliveryLogStatus?
    /// Apple's or Herald's reason (`Unregistered`, `ConnectionLost`, …).
    public var reason: String?
    /// Rows created at or after this.
    public var since: Date?
    /// Rows created before this.
    public var until: Date?
    /// The app's external id: rows of its devices only.
    public var appID: String?

    public init(
        userID: String? = nil, deviceID: UUID? = nil, projectID: String? = nil, notificationID: UUID? = nil,
        type: String? = nil, status: DeliveryLogStatus? = nil, reason: String? = nil, since: Date? = nil,
        until: Date? = nil, appID: String? = nil
    ) {
        self.appID = appID
        self.userID = userID
        self.deviceID = deviceID
        self.projectID = projectID
        self.notificationID = notificationID
        self.type = type
        self.status = status
        self.reason = reason
        self.since = since
        self.until = until
    }
}

/// A position in the newest-first listing: the last row of a page.
public struct DeliveryLogCursor: Sendable, Hashable {
    public var createdAt: Date
    public var id: UUID

    public init(createdAt: Date, id: UUID) {
        self.createdAt = createdAt
        self.id = id
    }
}

/// One delivery-log row as operators see it (never with a device token).
public struct DeliveryLogEntry: Sendable, Hashable, Codable {
    public var id: UUID
    public var createdAt: Date
    public var userID: String
    public var deviceID: UUID?
    public var notificationID: UUID
    public var deliveryID: UUID
    public var type: String
    public var status: String
    public var feedbackID: String?
    public var projectID: String?
    public var environment: String
    public var attempt: Int
    public var httpStatus: Int?
    public var reason: String?
    public var latencyMs: Double?
    public var errorMessage: String?
    /// Apple's `apns-unique-id`, for its Push Notifications Console.
    public var apnsUniqueID: String?
    /// The line the delivery waited in; nil once retention removed its notification.
    public var lane: DeliveryLane?

    /// Where the next page starts.
    public var cursor: DeliveryLogCursor { DeliveryLogCursor(createdAt: createdAt, id: id) }
}
