-- Finished deliveries leave the outbox. A delivery that reaches a final state (sent, failed, token_expired,
-- expired, canceled) is deleted, and its final log row is its record: updating it in place wrote a new row version
-- into five indexes for every push, the largest PostgreSQL cost per delivery, where a delete marks the row dead.
-- The statistics, a notification's delivery list and its counts read final log rows from now on.
--
-- The final states stay allowed: while replicas are rolled over, workers of the release before this one still record
-- results in place (with their log rows). The readers take only open rows (finished_at IS NULL) from the outbox, and
-- herald prune deletes such leftovers as before. finished_at stays for them, and for deliveries_open_idx (0014).

-- Deliveries finished without a final log row of their own (those canceled outside the engine) get one, at the
-- time they finished. The log's notification index finds a delivery's rows.
INSERT INTO push_notification_logs (
    user_id, device_token_id, notification_id, delivery_id, notification_type, status, project_id, environment,
    attempt, http_status, apns_reason, created_at)
SELECT d.user_id, d.device_token_id, d.notification_id, d.id, coalesce(d.notification_type, n.type), d.state,
    n.project_id, d.environment, d.attempts, d.last_status, d.last_reason, d.finished_at
FROM deliveries AS d JOIN notifications AS n ON n.id = d.notification_id
WHERE d.finished_at IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM push_notification_logs AS l
    WHERE l.notification_id = d.notification_id AND l.delivery_id = d.id AND l.status = d.state);

DELETE FROM deliveries WHERE finished_at IS NOT NULL;

DROP INDEX deliveries_finished_untyped_idx;
DROP INDEX deliveries_finished_idx;
ALTER TABLE deliveries DROP COLUMN outcome;

-- The statistics: final rows by time, read from the index alone.
CREATE INDEX idx_push_logs_finished ON push_notification_logs (created_at)
    INCLUDE (notification_type, status, apns_reason, device_token_id) WHERE status <> 'retrying';
