-- Broadcast channels (iOS 18): Apple makes a channel for an app and environment, and one broadcast request then
-- updates every Live Activity subscribed to it. Herald keeps the channels it made, and one row per broadcast with
-- Apple's answer (its apns-unique-id finds the broadcast in Apple's console).
CREATE TABLE broadcast_channels (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Apple's id: base64 of unstated length.
    channel_id text NOT NULL UNIQUE,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    environment text NOT NULL,
    -- 0: nothing stored (expiration 0); 1: the most recent broadcast kept up to 8 hours.
    message_storage_policy smallint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT broadcast_channels_channel_id_format CHECK (
        char_length(channel_id) BETWEEN 1 AND 256 AND channel_id ~ '^[A-Za-z0-9+/=]+$'),
    CONSTRAINT broadcast_channels_environment_valid CHECK (environment IN ('sandbox', 'production')),
    CONSTRAINT broadcast_channels_policy_valid CHECK (message_storage_policy IN (0, 1))
);
CREATE INDEX broadcast_channels_app ON broadcast_channels (app_id, created_at);

CREATE TABLE channel_broadcasts (
    -- Sent as apns-request-id.
    id uuid PRIMARY KEY,
    channel_id text NOT NULL,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
    event text NOT NULL,
    status text NOT NULL,
    http_status integer,
    apns_reason text,
    apns_unique_id text,
    latency_ms double precision,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT channel_broadcasts_event_valid CHECK (event IN ('update', 'end')),
    CONSTRAINT channel_broadcasts_status_valid CHECK (status IN ('sent', 'failed')),
    CONSTRAINT channel_broadcasts_http_status_range CHECK (http_status BETWEEN 100 AND 999),
    CONSTRAINT channel_broadcasts_latency_nonnegative CHECK (latency_ms >= 0)
);
CREATE INDEX channel_broadcasts_channel ON channel_broadcasts (channel_id, created_at DESC);
