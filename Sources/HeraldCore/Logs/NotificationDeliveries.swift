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
    }

    /// A recipient that got no delivery, and why (`global_off`, `muted`, `type_off`, `override_off`,
    /// `no_active_device`).
    public struct Suppression: Sendable, Hashable {
        public var userID: String
        public var reason: String
        public var createdAt: Date
    }

    public var notificationID: UUID
    /// `scheduled`, `expanded` or `canceled`.
    public var state: String
    public var deliveries: [Delivery]
    public var suppressions: [Suppression]
}

extension DeliveryLogStore {
    /// The deliveries and suppressions of notification `id`, or `nil` when no notification in `scope` has it.
    public func deliveries(of id: UUID, in scope: AppScope) async throws -> NotificationDeliveries? {
        guard
            let state = try await client.query(
                """
                SELECT n.state FROM notifications n WHERE n.id = \(id)
                AND (\(scope.app?.rawValue)::text IS NULL
                    OR n.targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(scope.app?.rawValue))
                """
            ).first?.decode(column: 0, as: String.self)
        else { return nil }
        let deliveries = try await client.query(
            """
            SELECT d.id, u.external_id, d.device_token_id, d.environment, d.state, d.attempts::int8,
                d.last_status::int8, d.last_reason, d.next_attempt_at, d.updated_at, d.finished_at
            FROM deliveries AS d JOIN users AS u ON u.id = d.user_id
            WHERE d.notification_id = \(id)
            ORDER BY u.external_id, d.created_at, d.id
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
                finishedAt: try row.decode(column: 10, as: Date?.self))
        }
        let suppressions = try await client.query(
            """
            SELECT u.external_id, s.reason, s.created_at
            FROM notification_suppressions AS s JOIN users AS u ON u.id = s.user_id
            WHERE s.notification_id = \(id)
            ORDER BY u.external_id
            """
        ).map { row in
            NotificationDeliveries.Suppression(
                userID: try row.decode(column: 0, as: String.self), reason: try row.decode(column: 1, as: String.self),
                createdAt: try row.decode(column: 2, as: Date.self))
        }
        return NotificationDeliveries(
            notificationID: id, state: state, deliveries: deliveries, suppressions: suppressions)
    }
}
