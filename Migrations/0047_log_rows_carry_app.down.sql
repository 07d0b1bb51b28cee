-- Reverts 0047_log_rows_carry_app: the per-minute counts find every row's app through its device again.
CREATE OR REPLACE FUNCTION push_log_minutes_add_from_log(since timestamptz, before timestamptz) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO push_log_minutes AS m (minute, app_id, notification_type, status, apns_reason, count)
    SELECT date_trunc('minute', l.created_at, 'UTC'), d.app_id, l.notification_type, l.status, l.apns_reason, count(*)
    FROM push_notification_logs AS l LEFT JOIN device_tokens AS d ON d.id = l.device_token_id
    WHERE l.created_at >= since AND l.created_at < before AND l.status <> 'retrying'
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ON CONSTRAINT push_log_minutes_key DO UPDATE SET count = m.count + EXCLUDED.count
$$;

CREATE OR REPLACE FUNCTION push_log_minutes_count() RETURNS trigger LANGUAGE plpgsql AS $$
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

ALTER TABLE push_notification_logs DROP COLUMN app_id;
