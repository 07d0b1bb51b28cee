import Foundation
import Postgres

extension DeliveryStore {
    /// The lanes and apps with due work, each with its app's weight and its due deliveries counted up to `cap`: what
    /// ``ClaimShares`` plans a claim from.
    ///
    /// The groups are found by skipping through `deliveries_due_idx` (migration 0038) from one (lane, app) to the
    /// next, one index descent per group however long the outbox is; each count stops at `cap` rows.
    struct DueGroupsStatement: PostgresStatement {
        /// A delivery's app as the index keys it: the nil id (``ClaimGroup/noApp``) for a device without an app.
        /// Every statement that should use the index must spell it exactly so.
        static let appKey = "coalesce(app_id, '\(ClaimGroup.noApp.uuidString)'::uuid)"

        enum Parameter: PostgresParameter {
            case cap
        }

        enum Column: String, PostgresColumn {
            case lane = "g.lane"
            case app = "g.app"
            case weight = "coalesce(a.delivery_weight, 1)"
            case due = "c.due"
        }

        static let name = "herald_delivery_due_groups"

        static let sql = """
            WITH RECURSIVE g (lane, app) AS (
                (SELECT lane, \(appKey) FROM deliveries WHERE finished_at IS NULL
                 ORDER BY lane, \(appKey) LIMIT 1)
                UNION ALL
                SELECT x.lane, x.app FROM g CROSS JOIN LATERAL (
                    SELECT lane, \(appKey) AS app FROM deliveries
                    WHERE finished_at IS NULL AND (lane, \(appKey)) > (g.lane, g.app)
                    ORDER BY lane, \(appKey) LIMIT 1
                ) AS x
            )
            SELECT \(Column.selectList)
            FROM g
            LEFT JOIN apps AS a ON a.id = g.app
            CROSS JOIN LATERAL (
                SELECT count(*) AS due FROM (
                    SELECT FROM deliveries
                    WHERE finished_at IS NULL AND lane = g.lane AND \(appKey) = g.app
                        AND state IN ('pending', 'deferred') AND next_attempt_at <= now()
                    LIMIT \(Parameter.cap)
                ) AS d
            ) AS c
            WHERE c.due > 0
            """

        let cap: Int

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .cap: .init(cap)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> DueGroup {
            DueGroup(
                ClaimGroup(
                    lane: DeliveryLane(rawValue: try row.decode(Column.lane, as: String.self)) ?? .bulk,
                    app: try row.decode(Column.app, as: UUID.self)),
                weight: Int(try row.decode(Column.weight, as: Int32.self)),
                due: try row.decode(Column.due, as: Int.self))
        }
    }
}
