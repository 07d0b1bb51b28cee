-- What the APNs ingress (pushes that APNs clients send to Herald in Apple's own protocol) keeps.
--
-- Apple's timestamp of a refusal, with the attempt's log row: with a 410 (Unregistered, ExpiredToken) it says when
-- Apple last knew the token to be valid, and the ingress hands it back to the client whose push it relayed, in Apple's
-- own answer. NULL for every other answer. A nullable column without a default: adding it rewrites no partition.
ALTER TABLE push_notification_logs ADD COLUMN apns_timestamp timestamptz;

-- A token the ingress relays to but no app ever registered gets a device row of its own, so its pushes go through the
-- outbox, the engine and the log like any other. Such a row is inactive with reason `not_registered`: no event or
-- direct send reaches it, as none reaches a device its user removed, until the app registers the token, which moves
-- the row to that user and activates it.
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended', 'over_limit', 'not_for_topic', 'not_registered'));
