-- Reverts 0029_finished_deliveries_leave_outbox: finished deliveries come back from their newest final log row,
-- where their notification, device and user still exist (a delivery of a deleted one was deleted with it before).

DROP INDEX idx_push_logs_finished;

INSERT INTO deliveries (
    id, notification_id, user_id, device_token_id, environment, state, attempts, next_attempt_at, last_status,
    last_reason, created_at, updated_at, finished_at, notification_type)
SELECT DISTINCT ON (l.delivery_id) l.delivery_id, l.notification_id, l.user_id, l.device_token_id, l.environment,
    l.status, l.attempt, l.created_at, l.http_status, l.apns_reason, l.created_at, l.created_at, l.created_at,
    l.notification_type
FROM push_notification_logs AS l
WHERE l.status <> 'retrying'
    AND EXISTS (SELECT 1 FROM notifications AS n WHERE n.id = l.notification_id)
    AND EXISTS (SELECT 1 FROM device_tokens AS t WHERE t.id = l.device_token_id)
    AND EXISTS (SELECT 1 FROM users AS u WHERE u.id = l.user_id)
    AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.id = l.delivery_id)
ORDER BY l.delivery_id, l.created_at DESC
ON CONFLICT DO NOTHING;
