DELETE FROM device_tokens WHERE kind <> 'device';
DROP INDEX device_tokens_parent;
DROP INDEX device_tokens_activity;
DROP INDEX device_tokens_push_to_start;
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_activity_id_format,
    DROP CONSTRAINT device_tokens_attributes_type_format,
    DROP CONSTRAINT device_tokens_kind_shape,
    DROP CONSTRAINT device_tokens_kind_valid,
    DROP COLUMN activity_id,
    DROP COLUMN attributes_type,
    DROP COLUMN parent_device_id,
    DROP COLUMN kind,
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user'));
