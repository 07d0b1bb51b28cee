-- The last step of Benchmarks/logs-at-scale.sh's load (setup.sql says what is loaded, and how): the past days filled
-- by bench.fill_days are attached, today's log rows written through the partitioned table, the finished deliveries
-- written from the log, and the `bench` schema dropped.

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

SELECT bench.copy_log_rows(
    'push_notification_logs', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', now());

-- Deliveries: each final attempt's, indexes set aside and built afterwards from their own definitions.
CREATE TEMPORARY TABLE delivery_indexes AS
SELECT c.conname, pg_get_constraintdef(c.oid) AS constraint_definition,
    i.indexrelid::regclass::text AS index_name, pg_get_indexdef(i.indexrelid) AS index_definition
FROM pg_index AS i LEFT JOIN pg_constraint AS c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
WHERE i.indrelid = 'deliveries'::regclass;

SELECT CASE WHEN conname IS NULL THEN format('DROP INDEX %I', index_name)
    ELSE format('ALTER TABLE deliveries DROP CONSTRAINT %I', conname) END
FROM delivery_indexes \gexec

SET session_replication_role = replica;
INSERT INTO deliveries (
    id, notification_id, user_id, device_token_id, environment, state, attempts, next_attempt_at, last_status,
    last_reason, created_at, updated_at, finished_at, notification_type)
SELECT delivery_id, notification_id, user_id, device_token_id, environment, status,
    CASE WHEN status = 'canceled' THEN 0 ELSE attempt END, created_at, http_status, apns_reason,
    created_at - interval '1 second', created_at, created_at, notification_type
FROM push_notification_logs WHERE status <> 'retrying';
RESET session_replication_role;

SELECT CASE WHEN conname IS NULL THEN index_definition
    ELSE format('ALTER TABLE deliveries ADD CONSTRAINT %I %s', conname, constraint_definition) END
FROM delivery_indexes \gexec

DROP SCHEMA bench CASCADE;
