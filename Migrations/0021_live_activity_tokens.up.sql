-- Live Activity tokens are APNs tokens of a device for the liveactivity push type, so they live beside device
-- tokens and go through the same outbox, deactivation (410/400) and log:
--   push_to_start  a device's token to start activities of one attributes type remotely (iOS 17.2+);
--   activity       the update token of one running activity, reported by the app, until it ends.
-- Both belong to their device (its user, app, environment and topic) and go with it.
ALTER TABLE device_tokens
    ADD COLUMN kind text NOT NULL DEFAULT 'device',
    ADD COLUMN parent_device_id uuid REFERENCES device_tokens (id) ON DELETE CASCADE,
    ADD COLUMN attributes_type text,
    ADD COLUMN activity_id text,
    ADD CONSTRAINT device_tokens_kind_valid CHECK (kind IN ('device', 'push_to_start', 'activity')),
    ADD CONSTRAINT device_tokens_kind_shape CHECK (
        (kind = 'device' AND parent_device_id IS NULL AND attributes_type IS NULL AND activity_id IS NULL)
        OR (kind = 'push_to_start' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NULL)
        OR (kind = 'activity' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NOT NULL)),
    ADD CONSTRAINT device_tokens_attributes_type_format CHECK (attributes_type ~ '^[A-Za-z_][A-Za-z0-9_.]{0,127}$'),
    ADD CONSTRAINT device_tokens_activity_id_format CHECK (activity_id ~ '^[A-Za-z0-9._:@-]{1,128}$'),
    -- The app reports when an activity ends; its token is then kept, inactive, for the delivery history.
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended'));

-- One push-to-start token per device and attributes type; one token per running activity on a device.
CREATE UNIQUE INDEX device_tokens_push_to_start ON device_tokens (parent_device_id, attributes_type)
    WHERE kind = 'push_to_start';
CREATE UNIQUE INDEX device_tokens_activity ON device_tokens (activity_id, parent_device_id) WHERE kind = 'activity';
CREATE INDEX device_tokens_parent ON device_tokens (parent_device_id) WHERE parent_device_id IS NOT NULL;
