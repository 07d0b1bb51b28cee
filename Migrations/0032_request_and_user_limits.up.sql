-- Bounded work per caller and per user.
--
-- An API key may carry its own rate limit (requests per second; bursts of twice that); NULL takes the server's
-- HERALD_RATE_LIMIT_PER_SECOND and HERALD_RATE_LIMIT_BURST.
ALTER TABLE api_keys
    ADD COLUMN rate_limit integer,
    ADD CONSTRAINT api_keys_rate_limit_range CHECK (rate_limit BETWEEN 1 AND 100000);

-- A device (or a device's Live Activity or push-to-start token) deactivated because its user registered more than
-- the limit allows: the least recently registered makes room.
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended', 'over_limit'));
