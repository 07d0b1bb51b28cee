-- A recipient reached on some devices but not on one that has no token for the push's service (a VoIP push to a
-- phone with a VoIP token and a tablet without) is listed as skipped on that device: a suppression may name its
-- device. One row per notification, user and device; a row without a device stands for the recipient as a whole.
ALTER TABLE notification_suppressions
    ADD COLUMN device_token_id uuid REFERENCES device_tokens (id) ON DELETE CASCADE,
    DROP CONSTRAINT notification_suppressions_pkey;
CREATE UNIQUE INDEX notification_suppressions_key
    ON notification_suppressions (notification_id, user_id, device_token_id) NULLS NOT DISTINCT;
