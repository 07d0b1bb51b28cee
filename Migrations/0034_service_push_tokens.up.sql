-- The tokens Apple issues a device per push service: PushKit's (voip, complication, fileprovider), the location push
-- service extension's, PTChannelManager's (pushtotalk) and WidgetKit's (widgets, controls). A token works only on its
-- own service's topic, so pushes of those types go to the device's token of that kind, never to its device token.
-- Like Live Activity tokens they live beside the device's token (its user, app, environment and topic), go through
-- the same outbox, deactivation and log, and are removed with their device. Existing rows are kept as they are.
ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_kind_valid,
    ADD CONSTRAINT device_tokens_kind_valid CHECK (
        kind IN ('device', 'push_to_start', 'activity', 'voip', 'complication', 'fileprovider', 'location',
            'pushtotalk', 'widgets', 'controls')),
    DROP CONSTRAINT device_tokens_kind_shape,
    ADD CONSTRAINT device_tokens_kind_shape CHECK (
        (kind = 'device' AND parent_device_id IS NULL AND attributes_type IS NULL AND activity_id IS NULL)
        OR (kind = 'push_to_start' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NULL)
        OR (kind = 'activity' AND parent_device_id IS NOT NULL AND attributes_type IS NOT NULL
            AND activity_id IS NOT NULL)
        OR (kind IN ('voip', 'complication', 'fileprovider', 'location', 'pushtotalk', 'widgets', 'controls')
            AND parent_device_id IS NOT NULL AND attributes_type IS NULL AND activity_id IS NULL)),
    -- DeviceTokenNotForTopic on a service token: the app reported it for another service, so only it goes.
    DROP CONSTRAINT device_tokens_deactivation_reason_valid,
    ADD CONSTRAINT device_tokens_deactivation_reason_valid CHECK (
        deactivation_reason IN ('unregistered', 'expired_token', 'bad_device_token', 'removed_by_user',
            'activity_ended', 'over_limit', 'not_for_topic'));

-- One token per device and service.
CREATE UNIQUE INDEX device_tokens_service ON device_tokens (parent_device_id, kind)
    WHERE kind IN ('voip', 'complication', 'fileprovider', 'location', 'pushtotalk', 'widgets', 'controls');

-- A recipient none of whose devices has a token for the push's service.
ALTER TABLE notification_suppressions
    DROP CONSTRAINT notification_suppressions_reason_valid,
    ADD CONSTRAINT notification_suppressions_reason_valid CHECK (
        reason IN ('global_off', 'muted', 'type_off', 'override_off', 'no_active_device', 'no_voip_token',
            'no_complication_token', 'no_fileprovider_token', 'no_location_token', 'no_pushtotalk_token',
            'no_widgets_token', 'no_controls_token'));
