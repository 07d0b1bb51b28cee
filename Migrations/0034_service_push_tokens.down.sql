-- Reverts 0034_service_push_tokens: service tokens and their suppressions go; devices keep their device tokens.
DELETE FROM notification_suppressions WHERE reason LIKE 'no\_%\_token';
ALTER TABLE notification_suppressions
    DROP CONSTRAINT notification_suppressions_reason_valid,
    ADD CONSTRAINT notification_suppressions_reason_valid CHECK (
        reason IN ('global_off', 'muted', 'type_off', 'override_off', 'no_active_device'));

DROP INDEX device_tokens_service;
DELETE FROM device_tokens
WHERE kind IN ('voip', 'complication', 'fileprovider', 'location', 'pushtotalk', 'widgets', 'controls');
UPDATE device_tokens SET deactivation_reason = 'bad_device_token' WHERE deactivation_reason = 'not_for_topic';
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended', 'over_limit')),
    DROP CONSTRAINT device_tokens_kind_shape,
    ADD CONSTRAINT device_tokens_kind_shape CHECK (
        (kind = 'device' AND parent_device_id IS NULL AND attributes_type IS NULL AND activity_id IS NULL)
        OR (kind = 'push_to_start' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NULL)
        OR (kind = 'activity' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NOT NULL)),
    DROP CONSTRAINT device_tokens_kind_valid,
    ADD CONSTRAINT device_tokens_kind_valid CHECK (kind IN ('device', 'push_to_start', 'activity'));
