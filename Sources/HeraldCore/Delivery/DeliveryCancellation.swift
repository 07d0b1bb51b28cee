/// Canceling deliveries no worker holds, outside the engine (a notification or its group canceled, a device removed
/// or deactivated, a Live Activity ended): the pending and deferred rows leave the outbox, and each leaves a
/// `canceled` log row, the record of every finished delivery (Migrations/0029).
enum DeliveryCancellation {
    /// Cancels the deliveries of the devices in the expression `target (id)`, which were just deactivated (a device
    /// removed, an activity ended), with the reason the engine gives a delivery to an inactive device. The devices go
    /// in as an array, so the outbox is read through its device index whatever the planner guesses of their number.
    static let ofTargetDevices = expressions(
        where: "x.device_token_id = ANY(ARRAY(SELECT id FROM target))", reason: .deviceInactive)

    /// Cancels the deliveries of the notifications in the expression `target (id)`, which were just canceled.
    static let ofTargetNotifications = expressions(
        where: "x.notification_id IN (SELECT id FROM target)", reason: .notificationCanceled)

    /// Two common table expressions for a `WITH` list: `canceled` deletes the open rows of `deliveries x` that meet
    /// `condition` (SQL over `x`, naming earlier expressions for any value) and returns them; `canceled_logged`
    /// writes their log rows, with `reason` as the log's reason. `SELECT count(*) FROM canceled` counts them.
    ///
    /// A log row is dated by the clock, not the transaction's start, which may precede the notification's creation
    /// (a group cancel that began before it); readers look for a notification's rows from its creation on.
    static func expressions(where condition: String, reason: DeliveryReason) -> String {
        let reasonSQL = SQLText.literal(reason.text)
        return """
            canceled AS (
                DELETE FROM deliveries AS x
                WHERE (\(condition)) AND x.state IN ('pending', 'deferred')
                RETURNING x.id, x.notification_id, x.user_id, x.device_token_id, x.environment, x.attempts,
                    x.notification_type
            ),
            canceled_logged AS (
                INSERT INTO push_notification_logs (
                    user_id, device_token_id, notification_id, delivery_id, notification_type, status, project_id,
                    environment, attempt, apns_reason, created_at)
                SELECT c.user_id, c.device_token_id, c.notification_id, c.id, coalesce(c.notification_type, n.type),
                    'canceled', n.project_id, c.environment, c.attempts, \(reasonSQL), clock_timestamp()
                FROM canceled AS c JOIN notifications AS n ON n.id = c.notification_id
            )
            """
    }
}
