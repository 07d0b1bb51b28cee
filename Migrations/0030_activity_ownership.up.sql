-- Live Activity ids belong to one app and one user. ActivityKit's ids are unique on one device only, and a backend
-- may pick ids of its own (order-42): before this, a second user reporting an id joined the first user's activity,
-- and the backend's next update for it reached both; a report from another app could steer it to that app. The first
-- report of an id now binds it to the reporting device's app and user. The same user reports it from each of their
-- devices; another user's or app's report is refused (409) and writes nothing, and updates reach the owner's tokens
-- alone. The binding outlives the activity's end, so an ended id cannot be taken over either; it goes with its user
-- or app.
CREATE TABLE live_activities (
    activity_id text PRIMARY KEY,
    -- NULL only while no default app exists, as for the device it was reported from; the start-up that defines the
    -- default app claims it with the devices.
    app_id uuid REFERENCES apps (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    bound_at timestamptz NOT NULL DEFAULT now(),
    -- The owner's latest report.
    reported_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT live_activities_activity_id_format CHECK (activity_id ~ '^[A-Za-z0-9._:@-]{1,128}$')
);
CREATE INDEX live_activities_user ON live_activities (user_id);
CREATE INDEX live_activities_app ON live_activities (app_id);

-- Every id reported so far is bound to its most recent report's app and user.
INSERT INTO live_activities (activity_id, app_id, user_id, bound_at, reported_at)
SELECT DISTINCT ON (activity_id) activity_id, app_id, user_id, created_at, registered_at
FROM device_tokens
WHERE kind = 'activity'
ORDER BY activity_id, registered_at DESC, id DESC;

-- Tokens of an id reported by another user or app than its most recent report are removed, with what waited for
-- them. The server log says how many ids were shared (never a token or an id).
DO $$
DECLARE
    conflicted bigint;
    removed bigint;
BEGIN
    WITH losers AS (
        DELETE FROM device_tokens AS d
        USING live_activities AS o
        WHERE d.kind = 'activity' AND d.activity_id = o.activity_id
          AND (d.user_id <> o.user_id OR d.app_id IS DISTINCT FROM o.app_id)
        RETURNING d.activity_id
    )
    SELECT count(DISTINCT activity_id), count(*) INTO conflicted, removed FROM losers;
    IF conflicted > 0 THEN
        RAISE LOG 'herald migration 0030: % shared Live Activity ids kept their most recent report, % tokens removed',
            conflicted, removed;
    END IF;
END
$$;

-- Every activity token belongs to a bound id, and goes when its binding goes.
ALTER TABLE device_tokens ADD CONSTRAINT device_tokens_activity_bound
    FOREIGN KEY (activity_id) REFERENCES live_activities (activity_id) ON DELETE CASCADE;
