import Foundation
import Postgres

extension LiveActivityTokenStore {
    /// The tokens a device keeps a bounded number of, each kind counted apart.
    enum LimitedTokenKind: String {
        case activity
        case pushToStart = "push_to_start"
    }

    /// Runs `register` (one token's upsert for `device`) in a transaction under a lock per device, then deactivates
    /// (reason `over_limit`) the device's active tokens of `kind` beyond the limit, least recently registered first,
    /// and cancels their pending deliveries: concurrent reports cannot pass the limit together.
    func withinLimit<T: Sendable>(
        _ kind: LimitedTokenKind, of device: UUID, _ register: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let limit = limits.activityTokensPerDevice
        return try await client.withTransaction { connection in
            try await connection.execute(
                """
                SELECT pg_advisory_xact_lock(\(RegistrationLimits.deviceLockSpace), hashtext(\(device.uuidString)))
                """)
            let registered = try await register(connection)
            try await connection.execute(
                """
                WITH ranked AS (
                    SELECT d.id, row_number() OVER (
                        ORDER BY d.registered_at DESC, d.created_at DESC, d.id DESC) AS n
                    FROM device_tokens d
                    WHERE d.parent_device_id = \(device) AND d.kind = \(kind.rawValue) AND d.is_active
                ),
                target AS (SELECT d.id, d.is_active FROM device_tokens d JOIN ranked r ON r.id = d.id WHERE r.n > \(limit)),
                deactivated AS (
                    UPDATE device_tokens d
                    SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'over_limit',
                        updated_at = now()
                    FROM target t WHERE d.id = t.id
                ),
                \(unescaped: DeliveryCancellation.ofTargetDevices)
                SELECT count(*) FROM target
                """)
            return registered
        }
    }
}
