/// Which interactions `GET /api/v1/interactions` lists; every filter left `nil` is left out of the query.
public struct InteractionQuery: Hashable, Sendable {
    /// Read on from here; `nil` reads from the oldest interaction Herald keeps.
    public var since: InteractionCursor?
    /// The external id of the user whose devices reported them.
    public var userId: String?
    /// The type of the notifications interacted with.
    public var type: String?
    /// `opened`, `dismissed` or an action identifier.
    public var action: String?
    public var notificationId: HeraldNotificationID?
    /// Items per answer, 1 to 500; Herald's default is 100.
    public var limit: Int?

    public init(
        since: InteractionCursor? = nil, userId: String? = nil, type: String? = nil, action: String? = nil,
        notificationId: HeraldNotificationID? = nil, limit: Int? = nil
    ) {
        self.since = since
        self.userId = userId
        self.type = type
        self.action = action
        self.notificationId = notificationId
        self.limit = limit
    }
}
