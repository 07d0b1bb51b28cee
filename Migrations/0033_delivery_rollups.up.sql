-- Statistics read counts kept per minute instead of scanning the log. push_log_minutes holds, per UTC minute, app
-- (of the device when its row was written), notification type, final state and APNs reason, how many final log rows
-- (every state but `retrying`) were written. Statement triggers on the log keep it, in the writing statement's own
-- transaction, so it never disagrees with the log after a crash: one grouped upsert per statement (a batch's COPY
-- writes one row per key, not per push), keys in one order so concurrent writers cannot deadlock. Rows deleted
-- through the log (prune's row-by-row part) are taken off the same way; a detached day partition takes its minutes
-- with it (LogPartitions, in the transaction that detaches it), and prune drops every minute before its cutoff.
-- Rows moved between partitions inside the log (a day made out of the default partition) are neither added nor
-- taken off: they never leave the log.
--
-- A statistics bucket then reads the minutes wholly inside it from here, and only the log rows of its first and
-- last partial minute from the log (DeliveryStats), so its cost follows the minutes asked for, not the pushes sent.

CREATE TABLE push_log_minutes (
    minute timestamptz NOT NULL,
    app_id uuid,
    notification_type text NOT NULL,
    status text NOT NULL,
    apns_reason text,
    count bigint NOT NULL,
    CONSTRAINT push_log_minutes_key UNIQUE NULLS NOT DISTINCT (minute, app_id, notification_type, status, apns_reason),
    CONSTRAINT push_log_minutes_minute_whole CHECK (minute = date_trunc('minute', minute, 'UTC')),
    CONSTRAINT push_log_minutes_status_final CHECK (status IN ('sent', 'failed', 'token_expired', 'expired', 'canceled'))
);

-- Adds the final log rows written in [since, before) to their minutes: the backfill below, and days of rows that
-- reach the log without an INSERT through it (a benchmark attaching filled days).
CREATE FUNCTION push_log_minutes_add_from_log(since timestamptz, before timestamptz) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO push_log_minutes AS m (minute, app_id, notification_type, status, apns_reason, count)
    SELECT date_trunc('minute', l.created_at, 'UTC'), d.app_id, l.notification_type, l.status, l.apns_reason, count(*)
    FROM push_notification_logs AS l LEFT JOIN device_tokens AS d ON d.id = l.device_token_id
    WHERE l.created_at >= since AND l.created_at < before AND l.status <> 'retrying'
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ON CONSTRAINT push_log_minutes_key DO UPDATE SET count = m.count + EXCLUDED.count
$$;

-- One function for the three triggers below: deleted rows (and an update's old rows) are taken off, written rows
-- (and an update's new rows) added. Herald only inserts and deletes log rows; an update by hand is counted too.
CREATE FUNCTION push_log_minutes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        WITH removed AS (
            SELECT date_trunc('minute', l.created_at, 'UTC') AS minute, d.app_id, l.notification_type, l.status,
                l.apns_reason, count(*) AS count
            FROM deleted AS l LEFT JOIN device_tokens AS d ON d.id = l.device_token_id
            WHERE l.status <> 'retrying'
            GROUP BY 1, 2, 3, 4, 5
        ),
        lowered AS (
            UPDATE push_log_minutes AS m SET count = m.count - r.count
            FROM removed AS r
            WHERE m.minute = r.minute AND m.app_id IS NOT DISTINCT FROM r.app_id
                AND m.notification_type = r.notification_type AND m.status = r.status
                AND m.apns_reason IS NOT DISTINCT FROM r.apns_reason
            RETURNING m.minute, m.app_id, m.notification_type, m.status, m.apns_reason, m.count
        )
        DELETE FROM push_log_minutes AS m
        USING lowered AS w
        WHERE w.count <= 0 AND m.minute = w.minute AND m.app_id IS NOT DISTINCT FROM w.app_id
            AND m.notification_type = w.notification_type AND m.status = w.status
            AND m.apns_reason IS NOT DISTINCT FROM w.apns_reason;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO push_log_minutes AS m (minute, app_id, notification_type, status, apns_reason, count)
        SELECT date_trunc('minute', l.created_at, 'UTC'), d.app_id, l.notification_type, l.status, l.apns_reason,
            count(*)
        FROM written AS l LEFT JOIN device_tokens AS d ON d.id = l.device_token_id
        WHERE l.status <> 'retrying'
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT ON CONSTRAINT push_log_minutes_key DO UPDATE SET count = m.count + EXCLUDED.count;
    END IF;
    RETURN NULL;
END
$$;

-- The backfill below counts every row committed before this migration; the triggers count every row after it, for
-- creating them locks out log writers until this transaction commits.
CREATE TRIGGER push_log_minutes_count_insert AFTER INSERT ON push_notification_logs
    REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION push_log_minutes_count();
CREATE TRIGGER push_log_minutes_count_update AFTER UPDATE ON push_notification_logs
    REFERENCING OLD TABLE AS deleted NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION push_log_minutes_count();
CREATE TRIGGER push_log_minutes_count_delete AFTER DELETE ON push_notification_logs
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION push_log_minutes_count();

SELECT push_log_minutes_add_from_log('-infinity', 'infinity');
