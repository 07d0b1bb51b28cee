-- Delivery log: one row per attempt and per final outcome, append-only, for monitoring
-- (GET /logs, stats, herald logs) and for answering "what happened to this push?".
--   sent           Apple accepted it
--   failed         finally failed (e.g. DeviceTokenNotForTopic, attempt limit reached)
--   token_expired  Apple says the token is dead; the device was deactivated
--   retrying       this attempt failed and another is scheduled
--   expired        the notification's expiration passed before it could be sent
--   canceled       canceled before it was sent
--
-- feedback_id is the backend's opaque id (Herald stores no feedback). notification_id and delivery_id
-- are plain columns without foreign keys: the log is history that may outlive the outbox rows (they
-- are pruned on their own schedule), and foreign keys here would make every outbox delete touch this,
-- the largest table. user_id, device_token_id and project_id do have foreign keys, so deleting a user
-- also deletes their log (privacy) and deleting a device or project keeps the rows.
-- Peer-controlled text (apns_reason, error_message) is unconstrained on purpose: a strange answer from
-- Apple must never make a bulk log write fail. payload never holds a device token.

CREATE TABLE push_notification_logs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_token_id uuid REFERENCES device_tokens (id) ON DELETE SET NULL,
    notification_id uuid NOT NULL,
    delivery_id uuid NOT NULL,

    notification_type text NOT NULL,
    status text NOT NULL,

    feedback_id text,
    project_id uuid REFERENCES projects (id) ON DELETE SET NULL,

    payload jsonb,
    error_message text,
    -- The apns-id Herald sent (the delivery's id), not the echoed header: peers control that one.
    apns_id uuid,

    environment text NOT NULL,
    attempt integer NOT NULL,
    -- NULL when no answer came (connection lost, expired or canceled before sending).
    http_status integer,
    apns_reason text,
    -- From writing the request to reading the answer.
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

-- Newest-first listing with cursor pagination: ORDER BY created_at DESC, id DESC and the cursor
-- condition (created_at, id) < ($t, $id) walk this index backwards. It also serves since/until,
-- the stats window and pruning by age.
CREATE INDEX idx_push_logs_created ON push_notification_logs (created_at, id);
-- The user and status filters, with the listing order appended so a filtered page is read in order
-- from the index. The user one also serves the cascade from users.
CREATE INDEX idx_push_logs_user ON push_notification_logs (user_id, created_at, id);
CREATE INDEX idx_push_logs_status ON push_notification_logs (status, created_at, id);
-- The deviceId and projectId filters, and the SET NULL actions when a device or project is deleted.
CREATE INDEX idx_push_logs_device ON push_notification_logs (device_token_id, created_at, id);
CREATE INDEX idx_push_logs_project ON push_notification_logs (project_id, created_at, id);
-- A notification's log (notificationId filter, GET /notifications/{id}/deliveries history).
CREATE INDEX idx_push_logs_notification ON push_notification_logs (notification_id);
