public import Foundation
import Postgres

/// Where one notification went: each device's delivery and each user it skipped, with the reason
/// ("why did user X get nothing?"). Never a device token.
public struct NotificationDeliveries: Sendable, Hashable {
    /// One device's delivery.
    public struct Delivery: Sendable, Hashable {
        public var id: UUID
        public var userID: String
        public var deviceID: UUID
        public var environment: String
        public var state: String
        public var attempts: Int
        public var lastStatus: Int?
        public var lastReason: String?
        public var nextAttemptAt: Date
        public var updatedAt: Date
        public var finishedAt: Date?
        /// Apple's `apns-unique-id` of the answer that finished it, when Apple sent one.
        public var apnsUniqueID: String?
    }

    /// A recipient that got no delivery, and why (`global_off`, `muted`, `type_off`, `override_off`,
    /// `no_active_device`).
    public struct Suppression: Sendable, Hashable {
        public var userID: String
        /// The device skipped, when the recipient was reached on others but not this one (it has no token for the
        /// push's service); nil when the recipient as a whole got nothing.
        public var deviceID: UUID?
        public var reason: String
        public var createdAt: Date
    }

    public var notificationID: UUID
    /// `scheduled`, `expanded` or `canceled`.
    public var state: String
    /// The line its deliveries wait (or waited) in.
    public var lane: DeliveryLane
    public var deliveries: [Delivery]
    public var suppressions: [Suppression]
}

extension DeliveryLogStore {
    /// The deliveries and suppressions of notification `id`, or `nil` when no notification in `scope` has it.
    public func deliveries(of id: UUID, in scope: AppScope) async throws -> NotificationDeliveries? {
        guard
            let (state, lane) = try await client.query(
                """
                SELECT n.state, n.lane FROM notifications n WHERE n.id = \(id)
                AND (\(scope.app?.rawValue)::text IS NULL
                    OR n.targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(scope.app?.rawValue))
                """
            ).first?.decode((String, String).self)
        else { return nil }
        let deliveries = try await client.query(
            """
            SELECT x.id, u.external_id, x.device_token_id, x.environment, x.state, x.attempts, x.last_status,
                x.last_reason, x.next_attempt_at, x.updated_at, x.finished_at, x.apns_unique_id
            FROM notifications AS n
            CROSS JOIN LATERAL (\(unescaped: NotificationDeliveries.eachDelivery(withUniqueIDs: true))) AS x
            JOIN users AS u ON u.id = x.user_id
            WHERE n.id = \(id)
            ORDER BY u.external_id, x.created_at, x.id
            """
        ).map { row in
            NotificationDeliveries.Delivery(
                id: try row.decode(column: 0, as: UUID.self), userID: try row.decode(column: 1, as: String.self),
                deviceID: try row.decode(column: 2, as: UUID.self),
                environment: try row.decode(column: 3, as: String.self),
                state: try row.decode(column: 4, as: String.self), attempts: try row.decode(column: 5, as: Int.self),
                lastStatus: try row.decode(column: 6, as: Int?.self),
                lastReason: try row.decode(column: 7, as: String?.self),
                nextAttemptAt: try row.decode(column: 8, as: Date.self),
                updatedAt: try row.decode(column: 9, as: Date.self),
                finishedAt: try row.decode(column: 10, as: Date?.self),
                apnsUniqueID: try row.decode(column: 11, as: String?.self))
        }
        let suppressions = try await client.query(
            """
            SELECT u.external_id, s.reason, s.created_at, s.device_token_id
            FROM notification_suppressions AS s JOIN users AS u ON u.id = s.user_id
            WHERE s.notification_id = \(id)
            ORDER BY u.external_id, s.device_token_id NULLS FIRST
            """
        ).map { row in
            NotificationDeliveries.Suppression(
                userID: try row.decode(column: 0, as: String.self), deviceID: try row.decode(column: 3, as: UUID?.self),
                reason: try row.decode(column: 1, as: String.self), createdAt: try row.decode(column: 2, as: Date.self))
        }
        return NotificationDeliveries(
            notificationID: id, state: state, lane: DeliveryLane(rawValue: lane) ?? .bulk, deliveries: deliveries,
            suppressions: suppressions)
    }
}

extension NotificationDeliveries {
    /// SQL for one row per delivery of notification `n`: (id, user_id, device_token_id, environment, state,
    /// attempts, last_status, last_reason, next_attempt_at, updated_at, finished_at, created_at, and with `withUniqueIDs`
    /// apns_unique_id, which the log has since Migrations/0035). A delivery in the
    /// outbox (open, or finished in place by a release before Migrations/0029) is its row there; a finished one is its
    /// newest final log row, whose times are all when it finished. One whose device was deleted since is left out,
    /// as its outbox row went with the device. Log rows come after their notification, which limits the partitions
    /// read.
    static func eachDelivery(withUniqueIDs: Bool) -> String {
        """
        SELECT d.id, d.user_id, d.device_token_id, d.environment, d.state, d.attempts::int8, d.last_status::int8,
            d.last_reason, d.next_attempt_at, d.updated_at, d.finished_at, d.created_at\(withUniqueIDs ? ", NULL::text AS apns_unique_id" : "")
        FROM deliveries AS d
        WHERE d.notification_id = n.id
        UNION ALL
        SELECT * FROM (
            SELECT DISTINCT ON (l.delivery_id) l.delivery_id, l.user_id, l.device_token_id, l.environment, l.status,
                l.attempt::int8, l.http_status::int8, l.apns_reason, l.created_at, l.created_at, l.created_at,
                l.created_at\(withUniqueIDs ? ", l.apns_unique_id" : "")
            FROM push_notification_logs AS l
            WHERE l.notification_id = n.id AND l.created_at >= n.created_at AND l.status <> 'retrying'
                AND l.device_token_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM deliveries AS o WHERE o.id = l.delivery_id)
            ORDER BY l.delivery_id, l.created_at DESC
        ) AS finished
        """
    }
}
