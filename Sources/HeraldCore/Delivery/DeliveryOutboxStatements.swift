import Postgres

extension DeliveryStore {
    /// Returns up to `limit` deliveries whose lease ran out (their worker died) to `pending`.
    ///
    /// A claim leaves `next_attempt_at` alone and takes only rows already due, so a row whose lease ran out was due
    /// at least a lease ago, and leases are at least a second: the rescuer reads only the part of the open-deliveries
    /// index due more than a second ago, which is nearly empty while the engine keeps up (with a backlog, it is the
    /// backlog).
    struct RescueStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case limit
        }

        static let name = "herald_delivery_rescue"

        static let sql = """
            UPDATE deliveries
            SET state = 'pending', claimed_by = NULL, lease_expires_at = NULL, next_attempt_at = now(),
                updated_at = now()
            WHERE ctid = ANY (ARRAY(
                SELECT ctid FROM deliveries
                WHERE finished_at IS NULL AND next_attempt_at < now() - interval '1 second'
                    AND state = 'sending' AND lease_expires_at < now()
                ORDER BY next_attempt_at
                LIMIT \(Parameter.limit)
                FOR UPDATE SKIP LOCKED
            )) AND state = 'sending'
            """

        let limit: Int

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .limit: .init(limit)
                }
            }
        }
    }

    /// Counts the pending and deferred deliveries that are due now.
    struct DepthStatement: PostgresStatement {
        static let name = "herald_delivery_depth"

        static let sql = """
            SELECT count(*) FROM deliveries
            WHERE finished_at IS NULL AND state IN ('pending', 'deferred') AND next_attempt_at <= now()
            """

        func makeBindings() -> PostgresBindings { PostgresBindings() }

        func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(column: 0, as: Int.self) }
    }
}
