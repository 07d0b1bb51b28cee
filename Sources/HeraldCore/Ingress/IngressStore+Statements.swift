import APNsCore
import Foundation
import Postgres

extension IngressStore {
    /// Stores a relayed push: its token's device row (found, or made for a token Herald has never seen), the
    /// notification and its delivery, both with the push's `apns-id` as id (``DeliveryWakeUp`` wakes the engines
    /// after the commit). Answers nothing
    /// when the id is taken (``ReplayStatement`` says by what) or when a concurrent push to the same new token made
    /// its row first.
    struct AcceptStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case id
            case token
            case app
            case appExternalID
            case user
            case content
            case expiresAt
            case apiKey
            case trace
        }

        enum Column: PostgresColumn {
            case id
            case acceptedAt

            var expression: String {
                switch self {
                case .id: "n.id"
                case .acceptedAt: "n.created_at"
                }
            }
        }

        private typealias Target = NotificationTargets.Key

        static let name = "herald_ingress_accept"

        static let sql = """
            WITH known AS (
                SELECT id, user_id, environment FROM device_tokens WHERE token = \(Parameter.token)
            ),
            created AS (
                INSERT INTO device_tokens
                    (user_id, token, platform, environment, app_id, is_active, deactivated_at, deactivation_reason)
                SELECT \(Parameter.user), \(Parameter.token), 'iOS', a.default_environment, a.id, FALSE, now(),
                       'not_registered'
                FROM apps a
                WHERE a.id = \(Parameter.app) AND NOT EXISTS (SELECT 1 FROM known)
                  AND NOT EXISTS (SELECT 1 FROM notifications WHERE id = \(Parameter.id))
                ON CONFLICT (token) DO NOTHING
                RETURNING id, user_id, environment
            ),
            device AS (SELECT * FROM known UNION ALL SELECT * FROM created),
            n AS (
                INSERT INTO notifications
                    (id, kind, type, api_key_id, content, targets, respect_preferences, respect_quiet_hours, send_at,
                     expires_at, state, expanded_at, lane, trace_context)
                SELECT \(Parameter.id), 'direct', '\(IngressStore.notificationType)', \(Parameter.apiKey),
                       \(Parameter.content),
                       jsonb_build_object(\(Target.appId.sqlLiteral), \(Parameter.appExternalID)::text,
                           \(Target.deviceIds.sqlLiteral), jsonb_build_array(device.id)),
                       FALSE, FALSE, now(),
                       CASE WHEN \(Parameter.expiresAt)::timestamptz > now() THEN \(Parameter.expiresAt) END,
                       'expanded', now(), '\(DeliveryLane.immediate.rawValue)', \(Parameter.trace)
                FROM device
                ON CONFLICT (id) DO NOTHING
                RETURNING id, created_at
            ),
            d AS (
                INSERT INTO deliveries
                    (id, notification_id, user_id, device_token_id, environment, variant, notification_type, lane,
                     app_id, trace_context)
                SELECT n.id, n.id, device.user_id, device.id, device.environment, '\(PayloadVariant.default.rawValue)',
                       '\(IngressStore.notificationType)', '\(DeliveryLane.immediate.rawValue)', \(Parameter.app),
                       \(Parameter.trace)
                FROM n CROSS JOIN device
                RETURNING id
            )
            SELECT \(Column.selectList) FROM n JOIN d ON d.id = n.id
            """

        let submission: RelaySubmission
        let user: UUID
        let content: PostgresJSON
        let trace: PostgresJSON?

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .id: .init(submission.id.uuid)
                case .token: .init(submission.token.hex)
                case .app: .init(submission.app.id)
                case .appExternalID: .init(submission.app.externalID.rawValue)
                case .user: .init(user)
                case .content: .init(content)
                case .expiresAt: .init(submission.expiresAt)
                case .apiKey: .init(submission.apiKeyID)
                case .trace: .init(trace)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> RelayReceipt {
            RelayReceipt(
                id: try row.decode(Column.id, as: UUID.self),
                acceptedAt: try row.decode(Column.acceptedAt, as: Date.self))
        }
    }

    /// The notification a push's `apns-id` already names, if any, and whether it is the same push: a relayed push to
    /// the same token in the same app.
    struct ReplayStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case id
            case token
            case appExternalID
        }

        struct Earlier {
            let acceptedAt: Date
            let isSamePush: Bool
        }

        static let name = "herald_ingress_replay"

        static let sql = """
            SELECT n.created_at,
                   coalesce(n.type = '\(IngressStore.notificationType)' AND t.token = \(Parameter.token)
                            AND n.targets ->> \(NotificationTargets.Key.appId.sqlLiteral) = \(Parameter.appExternalID),
                            FALSE)
            FROM notifications n
            LEFT JOIN device_tokens t
              ON t.id = (n.targets -> \(NotificationTargets.Key.deviceIds.sqlLiteral) ->> 0)::uuid
            WHERE n.id = \(Parameter.id)
            """

        let submission: RelaySubmission

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .id: .init(submission.id.uuid)
                case .token: .init(submission.token.hex)
                case .appExternalID: .init(submission.app.externalID.rawValue)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> Earlier {
            let (acceptedAt, same) = try row.decode((Date, Bool).self)
            return Earlier(acceptedAt: acceptedAt, isSamePush: same)
        }
    }

    /// The final log rows of relayed pushes, through the log's notification index.
    struct OutcomesStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case ids
            case since
        }

        enum Column: String, PostgresColumn {
            case notificationID = "notification_id"
            case status
            case httpStatus = "http_status"
            case reason = "apns_reason"
            case uniqueID = "apns_unique_id"
            case appleTimestamp = "apns_timestamp"
        }

        static let name = "herald_ingress_outcomes"

        static let sql = """
            SELECT \(Column.selectList) FROM push_notification_logs
            WHERE notification_id = ANY (\(Parameter.ids)::uuid[]) AND created_at >= \(Parameter.since)
              AND status <> '\(DeliveryLogStatus.retrying.rawValue)'
            """

        let ids: [UUID]
        let since: Date

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(ids)
                case .since: .init(since)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> (UUID, RelayOutcome) {
            let status = try row.decode(Column.status, as: String.self)
            return (
                try row.decode(Column.notificationID, as: UUID.self),
                RelayOutcome(
                    status: DeliveryLogStatus(rawValue: status) ?? .failed,
                    httpStatus: try row.decode(Column.httpStatus, as: Int32?.self).map(Int.init),
                    reason: try row.decode(Column.reason, as: String?.self),
                    uniqueID: try row.decode(Column.uniqueID, as: String?.self),
                    appleTimestamp: try row.decode(Column.appleTimestamp, as: Date?.self))
            )
        }
    }
}

extension IngressStore {
    /// The type of every relayed push's notification and delivery, in the log and the statistics.
    static let notificationType = "apns"
}
