import APNsCore
import Foundation
import Postgres

extension IngressStore {
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
