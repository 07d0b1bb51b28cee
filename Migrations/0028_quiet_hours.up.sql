-- Quiet hours on the server: a user names a daily window in their own time zone (minutes of the day, overnight
-- windows allowed), and a push that falls due inside it waits for the window's end instead of waking them. It is
-- never dropped: expansion inserts its deliveries as 'deferred' with next_attempt_at at the window's end, and the
-- claim takes them when that time comes, as it takes a retry.
--
-- What respects quiet hours is decided when a notification is accepted (respect_quiet_hours): alerts do, unless
-- they are time-sensitive or critical, or the backend sent them with respectQuietHours false; silent, VoIP and
-- Live Activity pushes never wait.

ALTER TABLE users
    ADD COLUMN quiet_hours_enabled boolean NOT NULL DEFAULT FALSE,
    ADD COLUMN quiet_hours_start smallint,
    ADD COLUMN quiet_hours_end smallint,
    -- An IANA zone (Europe/Berlin): the window follows its daylight-saving changes.
    ADD COLUMN quiet_hours_time_zone text,
    ADD CONSTRAINT users_quiet_hours_minutes CHECK (
        quiet_hours_start BETWEEN 0 AND 1439 AND quiet_hours_end BETWEEN 0 AND 1439
        AND quiet_hours_start <> quiet_hours_end
    ),
    ADD CONSTRAINT users_quiet_hours_complete CHECK (
        NOT quiet_hours_enabled
        OR (quiet_hours_start IS NOT NULL AND quiet_hours_end IS NOT NULL AND quiet_hours_time_zone IS NOT NULL)
    );

ALTER TABLE notifications ADD COLUMN respect_quiet_hours boolean NOT NULL DEFAULT TRUE;

-- The new state widens the old rule, so every existing row already meets it: NOT VALID skips reading the whole
-- table under its lock, and new rows are checked all the same.
ALTER TABLE deliveries
    DROP CONSTRAINT deliveries_state_valid,
    ADD CONSTRAINT deliveries_state_valid CHECK (
        state IN ('pending', 'deferred', 'sending', 'sent', 'failed', 'token_expired', 'expired', 'canceled')
    ) NOT VALID;

-- When a push due at `at` may go to someone whose quiet hours are [start_minute, end_minute) in `time_zone`: NULL
-- when `at` is outside the window, else the window's end. The end is a wall-clock time of that zone, so a window
-- ending at 07:00 ends at 07:00 local on the days the clocks change too; an end that falls in the hour skipped in
-- spring is taken an hour later, as PostgreSQL reads such times. A zone the database no longer knows (tzdata
-- changed under a stored setting) counts as UTC rather than failing the expansion of everyone's notification.
CREATE FUNCTION herald_quiet_hours_release(start_minute int, end_minute int, time_zone text, at timestamptz)
RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
    local timestamp;
    minute int;
BEGIN
    BEGIN
        local := at AT TIME ZONE time_zone;
    EXCEPTION WHEN invalid_parameter_value THEN
        time_zone := 'UTC';
        local := at AT TIME ZONE time_zone;
    END;
    minute := extract(hour FROM local)::int * 60 + extract(minute FROM local)::int;
    IF (start_minute < end_minute AND minute >= start_minute AND minute < end_minute)
        OR (start_minute > end_minute AND (minute >= start_minute OR minute < end_minute)) THEN
        RETURN (date_trunc('day', local) + make_interval(mins => end_minute)
                + CASE WHEN minute >= end_minute THEN interval '1 day' ELSE interval '0' END) AT TIME ZONE time_zone;
    END IF;
    RETURN NULL;
END;
$$;
