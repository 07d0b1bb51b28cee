public import Foundation
import Postgres

/// Which waiting notifications a listing or a group cancel means; every filter given must hold.
public struct ScheduledFilter: Sendable, Equatable {
    /// Sends that name this user, or one of their devices.
    public var user: ExternalID?
    public var tag: NotificationTag?
    /// Sends due before this time.
    public var sendBefore: Date?

    public init(user: ExternalID? = nil, tag: NotificationTag? = nil, sendBefore: Date? = nil) {
        self.user = user
        self.tag = tag
        self.sendBefore = sendBefore
    }
}

/// Where a page of scheduled notifications ended: the last one's send time and id.
public struct ScheduledCursor: Sendable, Hashable {
    public var sendAt: Date
    public var id: UUID

    public init(sendAt: Date, id: UUID) {
        self.sendAt = sendAt
        self.id = id
    }
}

/// What `DELETE /notifications?tag=` did.
public struct GroupCancellation: Sendable, Equatable {
    /// Notifications canceled: scheduled ones, and expanded ones with deliveries still waiting.
    public var notifications: Int
    /// Deliveries that had not been claimed and will now never be sent.
    public var deliveries: Int
}

extension NotificationStore {
    /// The scheduled notifications in `scope` that match `filter`, soonest first, after `cursor`.
    public func scheduled(
        _ filter: ScheduledFilter, limit: Int, after cursor: ScheduledCursor?, in scope: AppScope
    ) async throws -> [NotificationStatus] {
        let user = filter.user?.rawValue
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.statusColumns) FROM notifications n
            WHERE n.state = 'scheduled'
              AND (\(filter.tag.map { [$0.rawValue] })::text[] IS NULL OR n.tags @> \(filter.tag.map { [$0.rawValue] }))
              AND (\(filter.sendBefore)::timestamptz IS NULL OR n.send_at < \(filter.sendBefore))
              AND (\(user)::text IS NULL
                   OR n.targets -> \(unescaped: Self.userIDsKey) ? \(user)
                   OR n.targets -> \(unescaped: Self.deviceIDsKey) ?| ARRAY(
                       SELECT d.id::text FROM device_tokens d JOIN users u ON u.id = d.user_id
                       WHERE u.external_id = \(user)))
              AND (\(scope.app?.rawValue)::text IS NULL
                   OR n.targets ->> \(unescaped: Self.appIDKey) = \(scope.app?.rawValue))
              AND (\(cursor?.sendAt)::timestamptz IS NULL OR (n.send_at, n.id) > (\(cursor?.sendAt), \(cursor?.id)))
            ORDER BY n.send_at, n.id
            LIMIT \(limit)
            """)
        return try rows.map(Self.status(from:))
    }

    /// Cancels every notification in `scope` with `tag` (and naming `user`, when given) that has not been sent:
    /// the scheduled ones, and the deliveries no worker has claimed of expanded ones, as ``cancel(_:in:)`` does one.
    public func cancelGroup(tag: NotificationTag, user: ExternalID?, in scope: AppScope) async throws
        -> GroupCancellation
    {
        try await client.withTransaction { connection in
            // Locking the rows waits out expansions in progress; the updates below, later statements, see their
            // deliveries.
            let ids = try await connection.query(
                """
                SELECT n.id FROM notifications n
                WHERE n.tags @> \([tag.rawValue])
                  AND (n.state = 'scheduled'
                       OR (n.state = 'expanded' AND EXISTS (
                           SELECT 1 FROM deliveries d
                           WHERE d.notification_id = n.id AND d.state IN ('pending', 'deferred'))))
                  AND (\(user?.rawValue)::text IS NULL
                       OR n.targets -> \(unescaped: Self.userIDsKey) ? \(user?.rawValue)
                       OR n.targets -> \(unescaped: Self.deviceIDsKey) ?| ARRAY(
                           SELECT d.id::text FROM device_tokens d JOIN users u ON u.id = d.user_id
                           WHERE u.external_id = \(user?.rawValue)))
                  AND (\(scope.app?.rawValue)::text IS NULL
                       OR n.targets ->> \(unescaped: Self.appIDKey) = \(scope.app?.rawValue))
                FOR UPDATE
                """
            ).decode(UUID.self)
            guard !ids.isEmpty else { return GroupCancellation(notifications: 0, deliveries: 0) }
            let notifications = try await connection.execute(
                """
                UPDATE notifications SET state = 'canceled', canceled_at = now(), updated_at = now()
                WHERE id = ANY (\(ids)) AND state <> 'canceled'
                """)
            let deliveries = try await connection.query(
                """
                WITH target AS (SELECT unnest(\(ids)::uuid[]) AS id),
                \(unescaped: DeliveryCancellation.ofTargetNotifications)
                SELECT count(*) FROM canceled
                """
            ).scalar(Int.self)
            return GroupCancellation(notifications: notifications, deliveries: deliveries)
        }
    }

    private static let userIDsKey = NotificationTargets.Key.userIds.sqlLiteral
    private static let deviceIDsKey = NotificationTargets.Key.deviceIds.sqlLiteral
    private static let appIDKey = NotificationTargets.Key.appId.sqlLiteral
}
