-- What :days days of traffic leave behind in a migrated Herald database, for Benchmarks/logs-at-scale.sh, in three
-- steps: this file (the directory, the notifications, and the `bench` schema that generates the rest), then
-- bench.fill_days in two sessions at once (the past days of the log), then finish.sql (today's log rows, and `bench`
-- dropped).
--
-- :users users with two devices each (:devices), :projects projects, :notifications notifications spread evenly over
-- the days (the last a minute ago), and :rows delivery-log rows: each notification reaches :rows / :notifications
-- distinct devices, one row per attempt, 50 ms apart. Every final row (all but 'retrying') is a finished delivery's
-- record, as the engine writes it (the delivery leaves the outbox): what GET /api/v1/stats counts. Statuses come
-- from a hash of the row's number: 93% sent, 2.5% retrying, 2% failed, 1.5% token_expired, 0.5% expired, 0.5%
-- canceled. Ids are md5 digests or random uuids, as scattered in the indexes as Herald's own.
--
-- Loading is kept short the way a bulk load is done, without changing what is loaded or the schema it ends in:
--   * each past day of the log is filled as a plain table with the log's indexes built once the rows are in, then
--     attached, as Herald makes a day (LogPartitions); today's rows go through the partitioned table like Herald's
--     own writes;
-- So the indexes are freshly built, a little denser than after a month of random inserts.
--
-- psql variables: users, devices, projects, notifications, rows, days.

\set ON_ERROR_STOP on

CREATE SCHEMA bench;

INSERT INTO users (id, external_id, email, name, created_at, updated_at)
SELECT md5('user-' || u)::uuid, 'user-' || u, 'user' || u || '@example.com', 'User ' || u,
    now() - interval '1 year', now() - interval '1 year'
FROM generate_series(1, :users) AS u;

CREATE UNLOGGED TABLE bench.devices AS
SELECT d, md5('device-' || d)::uuid AS id, md5('user-' || ((d - 1) % :users + 1))::uuid AS user_id,
    CASE WHEN d % 10 = 0 THEN 'sandbox' ELSE 'production' END AS environment
FROM generate_series(1, :devices) AS d;

INSERT INTO device_tokens (id, user_id, token, platform, environment, topic, created_at, updated_at, registered_at)
SELECT id, user_id, md5('token-a-' || d) || md5('token-b-' || d), 'iOS', environment, 'com.example.app',
    now() - interval '1 year', now() - interval '1 year', now() - interval '1 year'
FROM bench.devices;

INSERT INTO projects (id, external_id, name, owner_id)
SELECT md5('project-' || p)::uuid, 'project-' || p, 'Project ' || p, md5('user-' || ((p * 37) % :users + 1))::uuid
FROM generate_series(1, :projects) AS p;

CREATE UNLOGGED TABLE bench.notifications AS
SELECT n, md5('notification-' || n)::uuid AS id,
    (ARRAY['new_comment', 'new_comment', 'new_feedback', 'new_vote', 'status_change'])[n % 5 + 1] AS type,
    n % :projects + 1 AS p, md5('project-' || (n % :projects + 1))::uuid AS project_id, 'fb-' || n % 50000 AS feedback_id,
    now() - make_interval(days => :days) + (make_interval(days => :days) - interval '1 minute') / :notifications * (n - 1)
        AS at
FROM generate_series(1, :notifications) AS n;

ANALYZE bench.devices;
ANALYZE bench.notifications;

INSERT INTO notifications (
    id, kind, type, project_id, project_external_id, content, targets, send_at, state, created_at, updated_at,
    expanded_at)
SELECT id, 'event', type, project_id, 'project-' || p, '{"payloads": {}}', '{}', at, 'expanded', at, at, at
FROM bench.notifications;

-- Row i = (n - 1) * fanout + k + 1 is notification n's attempt to its k-th device,
-- (n * 7919 + k * 10007) % devices + 1, distinct for every k of one notification.
CREATE VIEW bench.log_rows AS
SELECT nt.at AS notified_at, r.sent_at, r.status,
    dv.user_id, dv.id AS device_token_id, nt.id AS notification_id, r.delivery_id, nt.type AS notification_type,
    nt.feedback_id, nt.project_id,
    CASE WHEN r.status IN ('sent', 'retrying', 'failed', 'token_expired') THEN
        '{"aps": {"alert": {"title": "New comment", "body": "Ada commented on \"Dark mode for the editor\""},
          "sound": "default", "badge": 3}, "feedbackId": "fb-1234", "projectId": "project-42"}'::jsonb
    END AS payload,
    CASE r.status WHEN 'failed' THEN 'APNs refused the push' END AS error_message,
    dv.environment, CASE WHEN r.status <> 'retrying' AND r.i % 50 = 0 THEN 2 ELSE 1 END AS attempt,
    CASE r.status
        WHEN 'sent' THEN 200 WHEN 'retrying' THEN 429 WHEN 'failed' THEN 400 WHEN 'token_expired' THEN 410
    END AS http_status,
    CASE r.status
        WHEN 'retrying' THEN 'TooManyRequests' WHEN 'failed' THEN 'DeviceTokenNotForTopic'
        WHEN 'token_expired' THEN 'Unregistered' WHEN 'expired' THEN 'Expired'
    END AS apns_reason,
    CASE WHEN r.status IN ('sent', 'retrying', 'failed', 'token_expired') THEN 5 + (hashint8(-r.i) % 80 + 80) % 80
    END AS latency_ms
FROM bench.notifications AS nt
CROSS JOIN (
    SELECT k, make_interval(secs => k * 0.05) AS delay FROM generate_series(0, :rows / :notifications - 1) AS k
) AS recipient
JOIN bench.devices AS dv ON dv.d = (nt.n::int8 * 7919 + recipient.k * 10007) % :devices + 1
CROSS JOIN LATERAL (
    SELECT i, gen_random_uuid() AS delivery_id, nt.at + recipient.delay AS sent_at,
        CASE
            WHEN h < 9300 THEN 'sent' WHEN h < 9550 THEN 'retrying' WHEN h < 9750 THEN 'failed'
            WHEN h < 9900 THEN 'token_expired' WHEN h < 9950 THEN 'expired' ELSE 'canceled'
        END AS status
    FROM (SELECT (nt.n - 1) * (:rows / :notifications) + recipient.k + 1 AS i) AS numbered,
        LATERAL (SELECT (hashint8(i) % 10000 + 10000) % 10000 AS h) AS hashed
) AS r;

-- The log rows created in [since, before), into `target` (a day's table, or the partitioned log itself).
CREATE FUNCTION bench.copy_log_rows(target text, since timestamptz, before timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format(
        'INSERT INTO %I (user_id, device_token_id, notification_id, delivery_id, notification_type, status, '
        || 'feedback_id, project_id, payload, error_message, apns_id, environment, attempt, http_status, '
        || 'apns_reason, latency_ms, created_at, app_id) '
        || 'SELECT user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id, '
        || 'project_id, payload, error_message, delivery_id, environment, attempt, http_status, apns_reason, '
        || 'latency_ms, sent_at, (SELECT d.app_id FROM device_tokens AS d WHERE d.id = r.device_token_id) '
        || 'FROM bench.log_rows AS r '
        || 'WHERE notified_at >= $1 - interval ''1 minute'' AND notified_at < $2 AND sent_at >= $1 AND sent_at < $2',
        target) USING since, before;
END
$$;

-- The past days (UTC) that hold log rows, oldest first.
CREATE VIEW bench.past_days AS
SELECT row_number() OVER (ORDER BY day) - 1 AS number, day,
    'push_notification_logs_p' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD') AS name
FROM generate_series(
    (SELECT date_trunc('day', min(at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM bench.notifications),
    date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day', interval '1 day') AS day;

-- Fills every past day whose number is `part` modulo `parts` as a plain table with the log's columns, constraints,
-- primary key and indexes (each built once its rows are in), for finish.sql to attach.
CREATE FUNCTION bench.fill_days(part int, parts int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    past record;
    index record;
BEGIN
    FOR past IN SELECT * FROM bench.past_days WHERE number % parts = part LOOP
        EXECUTE format(
            'CREATE TABLE %I (LIKE push_notification_logs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', past.name);
        PERFORM bench.copy_log_rows(past.name, past.day, past.day + interval '1 day');
        FOR index IN
            SELECT row_number() OVER (ORDER BY i.indexrelid) AS number, pg_get_indexdef(i.indexrelid) AS definition,
                pg_get_constraintdef(c.oid) AS constraint_definition
            FROM pg_index AS i
            LEFT JOIN pg_constraint AS c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
            WHERE i.indrelid = 'push_notification_logs'::regclass
        LOOP
            IF index.constraint_definition IS NOT NULL THEN
                EXECUTE format('ALTER TABLE %I ADD %s', past.name, index.constraint_definition);
            ELSE
                EXECUTE regexp_replace(
                    index.definition, '^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+ ',
                    format('CREATE \1INDEX %I ON %I ', past.name || '_' || index.number, past.name));
            END IF;
        END LOOP;
    END LOOP;
END
$$;
