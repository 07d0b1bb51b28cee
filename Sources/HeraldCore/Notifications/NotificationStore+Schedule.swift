public import APNsCore
public import Foundation
import Postgres

/// What `DELETE /notifications/{id}` did.
public struct NotificationCancellation: Sendable, Equatable {
    /// The state before: `scheduled` (nothing was expanded), `expanded` or `canceled` (a repeat).
    public var previousState: String
    /// Deliveries that had not been claimed and will now never be sent.
    public var canceledDeliveries: Int
}

/// A change to a notification that has not been expanded yet.
public struct ScheduleChange: Sendable, Equatable {
    public var sendAt: Date?
    /// The replacement alert of every payload variant: the same title, subtitle and body a direct send takes.
    public var alert: Alert?

    public init(sendAt: Date? = nil, alert: Alert? = nil) {
        self.sendAt = sendAt
        self.alert = alert
    }
}

/// Why a ``ScheduleChange`` was refused.
public enum ScheduleChangeError: Error, Sendable, Equatable {
    /// Only scheduled notifications change; this one is in `state`.
    case notScheduled(state: String)
    /// `sendAt` would not come before the notification's expiration.
    case sendAtAfterExpiration
    /// A payload with the new alert would exceed the push type's limit (4096 bytes; 5120 for VoIP).
    case payloadTooLarge
}

extension NotificationStore {
    /// Cancels what has not been sent: the notification, and its deliveries no worker has claimed (with the
    /// engine's reason, `NotificationCanceled`). Pushes already sent, and claimed ones already on their way,
    /// stay as they are.
    /// - Returns: `nil` when no notification in `scope` has `id`.
    public func cancel(_ id: UUID, in scope: AppScope) async throws -> NotificationCancellation? {
        try await client.withTransaction { connection in
            // Locking the row waits out an expansion in progress, so its deliveries are canceled too.
            guard
                let state = try await connection.query(
                    """
                    SELECT n.state FROM notifications n WHERE n.id = \(id)
                    AND (\(scope.app?.rawValue)::text IS NULL
                    OR n.targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(scope.app?.rawValue))
                    FOR UPDATE
                    """
                ).first?.decode(column: 0, as: String.self)
            else { return nil }
            try await connection.execute(
                """
                UPDATE notifications SET state = 'canceled', canceled_at = now(), updated_at = now()
                WHERE id = \(id) AND state <> 'canceled'
                """)
            let canceled = try await connection.query(
                """
                WITH target AS (SELECT \(id)::uuid AS id),
                \(unescaped: DeliveryCancellation.ofTargetNotifications)
                SELECT count(*) FROM canceled
                """
            ).scalar(Int.self)
            return NotificationCancellation(previousState: state, canceledDeliveries: canceled)
        }
    }

    /// Changes the send time or alert of a notification that is still scheduled, and wakes expanders.
    /// - Returns: `false` when no notification in `scope` has `id`.
    /// - Throws: ``ScheduleChangeError`` when the notification or the change does not allow it.
    public func change(_ id: UUID, _ change: ScheduleChange, in scope: AppScope) async throws -> Bool {
        try await client.withTransaction { connection in
            guard
                let row = try await connection.query(
                    """
                    SELECT n.state, n.expires_at, n.content FROM notifications n WHERE n.id = \(id)
                    AND (\(scope.app?.rawValue)::text IS NULL
                    OR n.targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(scope.app?.rawValue))
                    FOR UPDATE
                    """
                ).first
            else { return false }
            let (state, expiresAt, stored) = try row.decode((String, Date?, PostgresJSON).self)
            guard state == "scheduled" else { throw ScheduleChangeError.notScheduled(state: state) }
            if let sendAt = change.sendAt, let expiresAt, sendAt >= expiresAt {
                throw ScheduleChangeError.sendAtAfterExpiration
            }
            // The content is rewritten only when the alert changes; a new time leaves it as stored.
            var content: PostgresJSON?
            if let alert = change.alert {
                var message = try stored.decode(NotificationMessage.self)
                try Self.replaceAlert(in: &message, with: alert)
                content = try PostgresJSON(encoding: message)
            }
            try await connection.execute(
                """
                UPDATE notifications
                SET send_at = coalesce(\(change.sendAt), send_at), content = coalesce(\(content), content),
                    updated_at = now()
                WHERE id = \(id)
                """)
            _ = try await connection.query(
                "SELECT pg_notify(\(HeraldChannel.notifications), \(id.uuidString.lowercased()))")
            return true
        }
    }

    /// Replaces `aps.alert` of every payload variant.
    private static func replaceAlert(in message: inout NotificationMessage, with alert: Alert) throws {
        for (variant, payload) in message.payloads {
            var changed = payload
            changed.aps.alert = alert
            guard let size = try? changed.encoded().count, size <= message.pushType.payloadLimit else {
                throw ScheduleChangeError.payloadTooLarge
            }
            message.payloads[variant] = changed
        }
    }
}
