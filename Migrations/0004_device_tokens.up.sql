-- Device tokens, with what a standalone gateway needs to send and to keep tokens clean:
-- the APNs environment, an optional topic, the last registration time and why a token was deactivated.
-- The token itself is secret-ish: the API never returns it and nothing logs it.

CREATE TABLE device_tokens (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token text NOT NULL,
    platform text NOT NULL,
    -- Which APNs server knows this token. Corrected when a BadDeviceToken retry in the other
    -- environment succeeds.
    environment text NOT NULL,
    -- The apns-topic for this device; NULL means the configured default bundle id.
    topic text,
    app_version text,
    os_version text,
    is_active boolean NOT NULL DEFAULT TRUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- Set on every (re-)registration. Apple's Unregistered/ExpiredToken answers deactivate the token
    -- only when Apple's timestamp is later than this, so a fresh registration is never undone by a
    -- stale answer.
    registered_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    deactivated_at timestamptz,
    -- unregistered / expired_token: Apple said so (410 Unregistered or ExpiredToken);
    -- bad_device_token: rejected in both environments; removed_by_user: the owner unregistered it.
    deactivation_reason text,

    CONSTRAINT device_tokens_token_key UNIQUE (token),
    -- 16 to 256 bytes as lowercase hex (writers lowercase before storing, so UNIQUE sees one form).
    CONSTRAINT device_tokens_token_format CHECK (
        token ~ '^[0-9a-f]+$'
        AND char_length(token) BETWEEN 32 AND 512
        AND char_length(token) % 2 = 0
    ),
    CONSTRAINT valid_platform CHECK (platform IN ('iOS', 'macOS')),
    CONSTRAINT device_tokens_environment_valid CHECK (environment IN ('sandbox', 'production')),
    CONSTRAINT device_tokens_topic_format CHECK (topic ~ '^[A-Za-z0-9.-]{1,255}$'),
    CONSTRAINT device_tokens_app_version_length CHECK (char_length(app_version) BETWEEN 1 AND 20),
    CONSTRAINT device_tokens_os_version_length CHECK (char_length(os_version) BETWEEN 1 AND 20),
    CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user')
    ),
    -- An active token carries no deactivation record; an inactive one says when and why.
    CONSTRAINT device_tokens_deactivation_consistent CHECK (
        (is_active AND deactivated_at IS NULL AND deactivation_reason IS NULL)
        OR (NOT is_active AND deactivated_at IS NOT NULL AND deactivation_reason IS NOT NULL)
    )
);

-- No separate index on token: device_tokens_token_key is already exactly that index. The user index
-- serves "devices of U" (active or not) and the cascade from users; the partial one serves expansion,
-- which wants only active devices.
CREATE INDEX idx_device_tokens_user_id ON device_tokens (user_id);
CREATE INDEX idx_device_tokens_active ON device_tokens (user_id, is_active) WHERE is_active = TRUE;
