-- Finished deliveries leave the outbox. A delivery that reaches a final state (sent, failed, token_expired,
-- expired, canceled) is deleted, and its final log row is its record: updating it in place wrote a new row version
-- into five indexes for every push, the largest PostgreSQL cost per delivery, where a delete only marks the row dead.
-- The statistics, a notification's delivery list and its counts read final log rows from now on.
--
-- While replicas are rolled over, those of the release before this one still finish deliveries in place (workers
-- with their log rows, cancels without), and read the statistics from deliveries_finished_idx and `outcome`. So the
-- final states, finished_at, `outcome` and both finished-deliveries indexes stay: a delivery list and its counts take
-- a finished row left in the outbox as it is, and `herald prune` moves such rows into the log, as below.

-- Every finished delivery leaves, in one statement, so none finished meanwhile is missed. The engine logged every
-- final state it recorded; a delivery canceled outside it (an API cancel, a device removed or deactivated) has no
-- log row, and gets one dated when it finished.
WITH finished AS (
    DELETE FROM deliveries WHERE finished_at IS NOT NULL
    RETURNING id, notification_id, user_id, device_token_id, environment, state, attempts, last_status,
        last_reason, finished_at, notification_type
)
INSERT INTO push_notification_logs (
    user_id, device_token_id, notification_id, delivery_id, notification_type, status, project_id, environment,
    attempt, http_status, apns_reason, created_at)
SELECT f.user_id, f.device_token_id, f.notification_id, f.id, coalesce(f.notification_type, n.type), f.state,
    n.project_id, f.environment, f.attempts, f.last_status, f.last_reason, f.finished_at
FROM finished AS f JOIN notifications AS n ON n.id = f.notification_id
WHERE f.state = 'canceled' AND NOT EXISTS (
    SELECT 1 FROM push_notification_logs AS l
    WHERE l.status = 'canceled' AND l.notification_id = f.notification_id AND l.delivery_id = f.id);

-- The statistics: final rows by time, read from the index alone. Built on every day partition under a lock that
-- holds log writes (the engine's results wait, none fails) until it is done.
CREATE INDEX idx_push_logs_finished ON push_notification_logs (created_at)
    INCLUDE (notification_type, status, apns_reason, device_token_id) WHERE status <> 'retrying';
