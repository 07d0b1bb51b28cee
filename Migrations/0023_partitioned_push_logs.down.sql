-- Reverts 0023_partitioned_push_logs: the log as one table again (as 0010 and 0012 left it), every row moved back
-- from the partitions, the default partition's included.

ALTER TABLE push_notification_logs RENAME TO push_notification_logs_partitioned;

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
);

INSERT INTO push_notification_logs (
    id, user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id, project_id,
    payload, error_message, apns_id, environment, attempt, http_status, apns_reason, latency_ms, created_at
)
SELECT
    id, user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id, project_id,
    payload, error_message, apns_id, environment, attempt, http_status, apns_reason, latency_ms, created_at
FROM push_notification_logs_partitioned;

-- Drops every partition with it, and frees the index names.
DROP TABLE push_notification_logs_partitioned;

ALTER TABLE push_notification_logs ADD CONSTRAINT push_notification_logs_pkey PRIMARY KEY (id);
CREATE INDEX idx_push_logs_created ON push_notification_logs (created_at, id);
CREATE INDEX idx_push_logs_user ON push_notification_logs (user_id, created_at, id);
CREATE INDEX idx_push_logs_status ON push_notification_logs (status, created_at, id);
CREATE INDEX idx_push_logs_device ON push_notification_logs (device_token_id, created_at, id);
CREATE INDEX idx_push_logs_project ON push_notification_logs (project_id, created_at, id);
CREATE INDEX idx_push_logs_notification ON push_notification_logs (notification_id);
