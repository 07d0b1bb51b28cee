package import Postgres

extension DeviceStore {
    /// Takes the transaction's locks on the registrations of `users`, in one order, so that two registrations for
    /// one user run one after the other and each counts the other's device.
    package static func lockRegistrations(of users: [String]) -> PostgresQuery {
        """
        SELECT pg_advisory_xact_lock(\(RegistrationLimits.userLockSpace), s.h)
        FROM (SELECT DISTINCT hashtext(u) AS h FROM unnest(\(users)) AS u ORDER BY h) AS s
        """
    }

    /// Deactivates (reason `over_limit`) the active devices of `users` beyond `limit` per user and app, least
    /// recently registered first, with their Live Activity tokens, and cancels their pending deliveries. Run in the
    /// registration's transaction, after ``lockRegistrations(of:)``.
    package static func trimDevices(of users: [String], to limit: Int) -> PostgresQuery {
        """
        WITH ranked AS (
            SELECT d.id, row_number() OVER (
                PARTITION BY d.user_id, d.app_id ORDER BY d.registered_at DESC, d.created_at DESC, d.id DESC) AS n
            FROM device_tokens d JOIN users u ON u.id = d.user_id
            WHERE u.external_id = ANY(\(users)) AND d.kind = 'device' AND d.is_active
        ),
        over_limit AS (SELECT id FROM ranked WHERE n > \(limit)),
        target AS (
            -- Two index lookups (by id, by parent) rather than one OR, which would scan every token.
            SELECT d.id, d.is_active FROM device_tokens d WHERE d.id IN (SELECT id FROM over_limit)
            UNION ALL
            SELECT d.id, d.is_active FROM device_tokens d WHERE d.parent_device_id IN (SELECT id FROM over_limit)
        ),
        deactivated AS (
            UPDATE device_tokens d
            SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'over_limit', updated_at = now()
            FROM target t WHERE d.id = t.id AND t.is_active
        ),
        \(unescaped: DeliveryCancellation.ofTargetDevices)
        SELECT count(*) FROM over_limit
        """
    }
}
