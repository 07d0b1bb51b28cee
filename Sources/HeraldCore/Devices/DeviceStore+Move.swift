package import Postgres

extension DeviceStore {
    /// When a registration moves a token to another user (someone else signed in on the device), what the device
    /// held for its earlier user must not reach the new one: its Live Activity and push-to-start tokens, reported
    /// for the earlier user, are deactivated (reason `removed_by_user`), its service tokens (VoIP, widgets, …), which
    /// belong to the app on the device, move with it to the new user, and the deliveries still waiting for the
    /// device or those tokens on behalf of anyone but the new user are canceled. Run in the registration's
    /// transaction, after the upsert; a token registered again by its own user changes nothing.
    package static func releaseMovedDevices(tokens: [String]) -> PostgresQuery {
        """
        WITH moved AS (
            SELECT d.id, d.user_id FROM device_tokens d WHERE d.token = ANY(\(tokens)) AND d.kind = 'device'
        ),
        target AS (
            SELECT c.id, c.is_active FROM device_tokens c JOIN moved m ON c.parent_device_id = m.id
            WHERE c.user_id <> m.user_id AND c.is_active AND c.kind IN ('push_to_start', 'activity')
        ),
        deactivated AS (
            UPDATE device_tokens d
            SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'removed_by_user', updated_at = now()
            FROM target t WHERE d.id = t.id
        ),
        followed AS (
            UPDATE device_tokens c SET user_id = m.user_id, updated_at = now()
            FROM moved m
            WHERE c.parent_device_id = m.id AND c.user_id <> m.user_id
              AND c.kind IN (\(unescaped: ServiceTokenKind.sqlList))
        ),
        owners AS (
            SELECT m.id, m.user_id FROM moved m
            UNION ALL
            SELECT c.id, m.user_id FROM device_tokens c JOIN moved m ON c.parent_device_id = m.id
        ),
        \(unescaped: cancelingOthersDeliveries)
        SELECT count(*) FROM canceled
        """
    }

    /// Cancels the waiting deliveries of the devices in `owners (id, user_id)` made for another user than the owner.
    private static let cancelingOthersDeliveries = DeliveryCancellation.expressions(
        where: "EXISTS (SELECT 1 FROM owners o WHERE o.id = x.device_token_id AND o.user_id <> x.user_id)",
        reason: .deviceInactive)
}
