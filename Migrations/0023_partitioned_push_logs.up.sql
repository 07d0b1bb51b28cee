-- The delivery log, partitioned by day (UTC) on created_at, so that retention drops whole days (herald prune) instead
-- of deleting rows one by one, and so that a read limited in time (since/until, the newest-first listing) touches
-- only the days it asks for.
--
-- Why days: retention is counted in days (herald prune --older-than 30d), so a day is what prune drops, and only
-- the rows of the one day straddling the cutoff are deleted by row. 30 to 90 partitions keep planning quick for the
-- reads that name no time (by user, by notification: a few milliseconds more than one table); hours would make
-- hundreds, weeks would leave up to a week of rows to delete by row.
--
-- Partitions are tables named push_notification_logs_pYYYYMMDD, holding [YYYY-MM-DD 00:00 UTC, next day 00:00
-- UTC). Herald creates them ahead (LogPartitions: today and the next 7 days, at start-up and every hour, in
-- `herald serve` and `herald worker`). push_notification_logs_default catches a row no day partition takes (every
-- process down past the days created ahead, a clock far off, a row written with an old created_at), so a log
-- write never fails for want of a partition; creating a day moves that day's rows out of it first, and prune
-- deletes its old rows by row.
--
-- The primary key has to include the partition key: (created_at, id). id stays unique in practice (a random
-- uuid), but nothing looks a row up by id alone: the listing, its cursor and pruning all go by (created_at, id),
-- which is exactly what the old idx_push_logs_created served, so that index is now the primary key.
--
-- This migration moves every existing row in its one transaction: the old table is renamed, the partitioned table
-- created with the same columns, defaults and constraints, one partition made for each day that has rows (and for
-- today and the next 7 days), the rows copied, the old table dropped, and the indexes built once the rows are in
-- (faster than keeping them up row by row). Log writers wait for it (their COPY waits on the table's lock and then
-- goes to the new table). On the 2-core development machine, with other builds running, a million rows over 30 days
-- took 19 seconds.

ALTER TABLE push_notification_logs RENAME TO push_notification_logs_unpartitioned;

CREATE TABLE push_notification_logs (
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL,
    device_token_id uuid,
    notification_id uuid NOT NULL,
    delivery_id uuid NOT NULL,

    notification_type text NOT NULL,
    status text NOT NULL,

    feedback_id text,
    project_id uuid,

    payload jsonb,
    error_message text,
    apns_id uuid,

    environment text NOT NULL,
    attempt integer NOT NULL,
    http_status integer,
    apns_reason text,
    latency_ms double precision,

    created_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT push_notification_logs_type_format CHECK (
        char_length(notification_type) BETWEEN 1 AND 50 AND notification_type !~ '[[:cntrl:]]'
    ),
    CONSTRAINT push_notification_logs_status_valid CHECK (
        status IN ('sent', 'failed', 'token_expired', 'retrying', 'expired', 'canceled')
    ),
    CONSTRAINT push_notification_logs_feedback_id_length CHECK (char_length(feedback_id) BETWEEN 1 AND 256),
    CONSTRAINT push_notification_logs_environment_valid CHECK (environment IN ('sandbox', 'production')),
    CONSTRAINT push_notification_logs_attempt_nonnegative CHECK (attempt >= 0),
    CONSTRAINT push_notification_logs_http_status_range CHECK (http_status BETWEEN 100 AND 999),
    CONSTRAINT push_notification_logs_latency_nonnegative CHECK (latency_ms >= 0)
) PARTITION BY RANGE (created_at);

-- One partition per UTC day that has rows, found one index probe per day (idx_push_logs_created still exists on
-- the old table), and one for today and each of the next 7 days.
DO $$
DECLARE
    day timestamp;
BEGIN
    FOR day IN
        WITH RECURSIVE days (day) AS (
            SELECT date_trunc('day', min(created_at) AT TIME ZONE 'UTC') FROM push_notification_logs_unpartitioned
            UNION ALL
            SELECT (
                SELECT date_trunc('day', min(l.created_at) AT TIME ZONE 'UTC')
                FROM push_notification_logs_unpartitioned AS l
                WHERE l.created_at >= (days.day + interval '1 day') AT TIME ZONE 'UTC'
            )
            FROM days WHERE days.day IS NOT NULL
        )
        SELECT days.day FROM days WHERE days.day IS NOT NULL
        UNION
        SELECT date_trunc('day', now() AT TIME ZONE 'UTC') + make_interval(days => ahead)
        FROM generate_series(0, 7) AS ahead
        ORDER BY 1
    LOOP
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF push_notification_logs FOR VALUES FROM (%L) TO (%L)',
            'push_notification_logs_p' || to_char(day, 'YYYYMMDD'),
            to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(day + interval '1 day', 'YYYY-MM-DD') || ' 00:00:00+00');
    END LOOP;
END
$$;

CREATE TABLE push_notification_logs_default PARTITION OF push_notification_logs DEFAULT;

INSERT INTO push_notification_logs (
    id, user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id, project_id,
    payload, error_message, apns_id, environment, attempt, http_status, apns_reason, latency_ms, created_at
)
SELECT
    id, user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id, project_id,
    payload, error_message, apns_id, environment, attempt, http_status, apns_reason, latency_ms, created_at
FROM push_notification_logs_unpartitioned;

DROP TABLE push_notification_logs_unpartitioned;

-- Indexes on the partitioned table, so every partition has them, the ones created later included. Each filter
-- of GET /api/v1/logs has one that ends in the listing order (created_at, id): a page of 50 is then read in order
-- from each day's index and merged, never sorted from every matching row.
--   primary key      the unfiltered listing, its cursor, since/until, pruning the day straddling the cutoff
--   user             userId (and the trigger that deletes a deleted user's rows)
--   status           status, usually with since
--   device, project  deviceId, projectId (and the triggers that detach a deleted device or project)
--   notification     notificationId: a notification to a large project has thousands of rows, so it gains the
--                    listing order too
ALTER TABLE push_notification_logs ADD CONSTRAINT push_notification_logs_pkey PRIMARY KEY (created_at, id);
CREATE INDEX idx_push_logs_user ON push_notification_logs (user_id, created_at, id);
CREATE INDEX idx_push_logs_status ON push_notification_logs (status, created_at, id);
CREATE INDEX idx_push_logs_device ON push_notification_logs (device_token_id, created_at, id);
CREATE INDEX idx_push_logs_project ON push_notification_logs (project_id, created_at, id);
CREATE INDEX idx_push_logs_notification ON push_notification_logs (notification_id, created_at, id);

-- Statistics for the partitions just filled, which autovacuum would gather only later.
ANALYZE push_notification_logs;
