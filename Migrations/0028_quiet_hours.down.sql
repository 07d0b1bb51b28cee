-- Reverts 0028_quiet_hours. Deferred deliveries become pending at once (they are sent early rather than lost), and
-- the users' quiet hours are forgotten.

DROP FUNCTION herald_quiet_hours_release(int, int, text, timestamptz);
UPDATE deliveries SET state = 'pending' WHERE state = 'deferred';
ALTER TABLE deliveries
    DROP CONSTRAINT deliveries_state_valid,
    ADD CONSTRAINT deliveries_state_valid CHECK (
        state IN ('pending', 'sending', 'sent', 'failed', 'token_expired', 'expired', 'canceled')
    );
ALTER TABLE notifications DROP COLUMN respect_quiet_hours;
ALTER TABLE users
    DROP CONSTRAINT users_quiet_hours_complete,
    DROP CONSTRAINT users_quiet_hours_minutes,
    DROP COLUMN quiet_hours_time_zone,
    DROP COLUMN quiet_hours_end,
    DROP COLUMN quiet_hours_start,
    DROP COLUMN quiet_hours_enabled;
