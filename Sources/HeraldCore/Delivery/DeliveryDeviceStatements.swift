import Foundation
import Postgres

extension DeliveryStore {
    /// Deactivates devices Apple no longer accepts and cancels their pending deliveries; returns each device it
    /// deactivated with its user.
    ///
    /// Deactivates only when Apple's knowledge is newer than the last registration (checked again here,
    /// under the row lock, against a registration that raced the answer).
    struct DeactivateStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case devices
            case reasons
            case appleTimestamps
        }

        enum Column: String, PostgresColumn {
            case deviceID = "x.id"
            case userExternalID = "u.external_id"
            case reason = "x.deactivation_reason"
        }

        static let name = "herald_delivery_deactivate"

        static let sql = """
            WITH locked AS (
                SELECT id FROM device_tokens WHERE id = ANY (\(Parameter.devices)::uuid[]) ORDER BY id FOR UPDATE
            ), deactivated AS (
                UPDATE device_tokens AS t
                SET is_active = FALSE, deactivated_at = now(), deactivation_reason = r.reason, updated_at = now()
                FROM unnest(
                    \(Parameter.devices)::uuid[], \(Parameter.reasons)::text[],
                    \(Parameter.appleTimestamps)::timestamptz[]
                ) AS r(id, reason, apple_at)
                WHERE t.id = r.id AND t.id IN (SELECT id FROM locked) AND t.is_active
                    AND t.registered_at < r.apple_at
                RETURNING t.id, t.user_id, t.deactivation_reason
            ),
            \(DeliveryCancellation.expressions(
                where: "x.device_token_id IN (SELECT id FROM deactivated)", reason: .deviceDeactivated))
            SELECT \(Column.selectList) FROM deactivated AS x JOIN users AS u ON u.id = x.user_id
            """

        /// The devices, in the order they are locked in.
        let devices: [UUID]
        let reasons: [DeactivationReason]
        /// When Apple learnt that each token is no longer valid.
        let appleTimestamps: [Date]

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .devices: .init(devices)
                case .reasons: .init(reasons.map(\.rawValue))
                case .appleTimestamps: .init(appleTimestamps)
                }
            }
        }

        /// The deactivated device, or `nil` for a reason this version does not know.
        func decodeRow(_ row: PostgresRow) throws -> DeactivatedDevice? {
            guard let reason = DeactivationReason(rawValue: try row.decode(Column.reason, as: String.self)) else {
                return nil
            }
            return DeactivatedDevice(
                deviceID: try row.decode(Column.deviceID, as: UUID.self),
                userExternalID: try row.decode(Column.userExternalID, as: String.self), reason: reason)
        }
    }

    /// Sets the devices' `last_used_at`, and their environment where Apple corrected it (`environments` holds "" for
    /// no correction).
    ///
    /// `last_used_at` is kept to the minute: a device written in the last minute is left alone, so a busy
    /// device is not rewritten by every batch. Environment corrections are always written. Skips devices
    /// another worker is updating right now: it is setting the same `last_used_at`.
    struct MarkUsedStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case devices
            case environments
        }

        static let name = "herald_delivery_mark_used"

        static let sql = """
            WITH r AS (
                SELECT * FROM unnest(\(Parameter.devices)::uuid[], \(Parameter.environments)::text[])
                    AS r(id, environment)
            ), locked AS (
                SELECT t.id FROM device_tokens AS t JOIN r ON r.id = t.id
                WHERE r.environment <> '' OR t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute'
                ORDER BY t.id
                FOR UPDATE OF t SKIP LOCKED
            )
            UPDATE device_tokens AS t
            SET last_used_at = now(),
                environment = CASE WHEN r.environment = '' THEN t.environment ELSE r.environment END,
                updated_at = CASE WHEN r.environment = '' THEN t.updated_at ELSE now() END
            FROM r
            WHERE t.id = r.id AND t.id IN (SELECT id FROM locked)
            """

        let devices: [UUID]
        let environments: [String]

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .devices: .init(devices)
                case .environments: .init(environments)
                }
            }
        }
    }
}
