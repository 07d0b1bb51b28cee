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
            -- Each named user, then their devices, through their indexes, one user at a time: joined to all of
            -- users and device_tokens at once, a batch's hundreds of users were planned as scans of both tables.
            SELECT d.id, d.n
            FROM (SELECT DISTINCT name FROM unnest(\(users)::text[]) AS name) AS named
            -- LIMIT keeps each lookup a subquery of its own, so it goes by the external id's index per name.
            CROSS JOIN LATERAL (SELECT u.id FROM users u WHERE u.external_id = named.name LIMIT 1) AS u
            CROSS JOIN LATERAL (
                SELECT d.id, row_number() OVER (
                    PARTITION BY d.app_id ORDER BY d.registered_at DESC, d.created_at DESC, d.id DESC) AS n
                FROM device_tokens d WHERE d.user_id = u.id AND d.kind = 'device' AND d.is_active
            ) AS d
        ),
        over_limit AS (SELECT id FROM ranked WHERE n > \(limit)),
        -- The few rows found so far go into arrays, so every lookup below is an index scan by value, whatever the
        -- planner guesses of their number: joined as relations, a guess of hundreds planned hash joins over every
        -- device token.
        target AS (
            SELECT d.id, d.is_active FROM device_tokens d WHERE d.id = ANY(ARRAY(SELECT id FROM over_limit))
            UNION ALL
            SELECT d.id, d.is_active FROM device_tokens d
            WHERE d.parent_device_id = ANY(ARRAY(SELECT id FROM over_limit))
        ),
        deactivated AS (
            UPDATE device_tokens d
            SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'over_limit', updated_at = now()
            WHERE d.id = ANY(ARRAY(SELECT id FROM target WHERE is_active))
        ),
        \(unescaped: DeliveryCancellation.ofTargetDevices)
        SELECT count(*) FROM over_limit
        """
    }
}
