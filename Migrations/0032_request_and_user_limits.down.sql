-- Reverts 0032_request_and_user_limits. Tokens deactivated over the limit read as removed, the nearest reason the
-- earlier schema knows.
UPDATE device_tokens SET deactivation_reason = 'removed_by_user' WHERE deactivation_reason = 'over_limit';

ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended'));

ALTER TABLE api_keys DROP COLUMN rate_limit;
