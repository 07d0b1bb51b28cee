-- A log row carries the app of its device when it was written, so the per-minute counts (Migrations/0033) no longer
-- join each statement's log rows to the device table.
--
-- The join read the whole device table for every statement that writes log rows: for 160 rows with 1,000 devices,
-- EXPLAIN ANALYZE put the trigger's upsert at 0.7-1.2 ms with the join and 0.3-0.4 ms without it.
--
-- Its app also stays with a row whose device is deleted. Detaching a deleted device's rows (Migrations/0012) is an
-- update of the log: the trigger looked for their minutes under no app to take them off (the device was gone),
-- found none, and added them under no app, while their app kept them: they counted twice.
--
-- Rows written before this migration, and rows a writer adds without an app (by hand), keep the old rule: the
-- device's app now, found by its primary key for that row alone.
--
-- A nullable column without a default: adding it rewrites no partition. The ALTER holds log writes only while it
-- changes the catalog.
ALTER TABLE push_notification_logs ADD COLUMN app_id uuid;

CREATE OR REPLACE FUNCTION push_log_minutes_add_from_log(since timestamptz, before timestamptz) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO push_log_minutes AS m (minute, app_id, notification_type, status, apns_reason, count)
    SELECT date_trunc('minute', l.created_at, 'UTC'),
        coalesce(l.app_id, (SELECT d.app_id FROM device_tokens AS d WHERE d.id = l.device_token_id)),
        l.notification_type, l.status, l.apns_reason, count(*)
    FROM push_notification_logs AS l
    WHERE l.created_at >= since AND l.created_at < before AND l.status <> 'retrying'
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ON CONSTRAINT push_log_minutes_key DO UPDATE SET count = m.count + EXCLUDED.count
$$;

CREATE OR REPLACE FUNCTION push_log_minutes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        WITH removed AS (
            SELECT date_trunc('minute', l.created_at, 'UTC') AS minute,
                coalesce(l.app_id, (SELECT d.app_id FROM device_tokens AS d WHERE d.id = l.device_token_id)) AS app_id,
                l.notification_type, l.status, l.apns_reason, count(*) AS count
            FROM deleted AS l
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
        SELECT date_trunc('minute', l.created_at, 'UTC'),
            coalesce(l.app_id, (SELECT d.app_id FROM device_tokens AS d WHERE d.id = l.device_token_id)),
            l.notification_type, l.status, l.apns_reason, count(*)
        FROM written AS l
        WHERE l.status <> 'retrying'
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT ON CONSTRAINT push_log_minutes_key DO UPDATE SET count = m.count + EXCLUDED.count;
    END IF;
    RETURN NULL;
END
$$;
