-- The last step of Benchmarks/logs-at-scale.sh's load (setup.sql says what is loaded, and how): the past days filled
-- by bench.fill_days are attached and their statistics minutes counted, today's log rows written through the
-- partitioned table, and the `bench` schema dropped.

\set ON_ERROR_STOP on

-- Their indexes match the log's, so attaching only checks each day's rows against its bounds.
DO $$
DECLARE
    past record;
BEGIN
    FOR past IN SELECT * FROM bench.past_days ORDER BY day LOOP
        EXECUTE format(
            'ALTER TABLE push_notification_logs ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
            past.name, past.day, past.day + interval '1 day');
    END LOOP;
END
$$;

-- Attached days reach the log without an INSERT through it, so their minutes are counted here, as an upgrade's
-- migration counts the rows it finds; today's rows below are counted as they are written.
SELECT push_log_minutes_add_from_log(
    (SELECT min(day) FROM bench.past_days), date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');

SELECT bench.copy_log_rows(
    'push_notification_logs', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', now());

DROP SCHEMA bench CASCADE;
