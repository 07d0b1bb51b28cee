-- Reverts 0046_apns_ingress. Devices only the ingress knew go, with their deliveries (their log rows stay).
DELETE FROM device_tokens WHERE deactivation_reason = 'not_registered';
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended', 'over_limit', 'not_for_topic'));
ALTER TABLE push_notification_logs DROP COLUMN IF EXISTS apns_timestamp;
