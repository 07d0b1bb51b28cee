-- What people did with their pushes: the app reports a banner opened, dismissed or one of its actions
-- (UNNotificationResponse.actionIdentifier, with the reply text of a text-input action), POST
-- /api/v1/notifications/{id}/interactions; backends read them in order (GET /api/v1/interactions), statistics count
-- them, and the outcome webhook posts them.
--
-- Partitioned by day like the log, on sent_at: when the push it answers was sent (the first `sent` log row of its
-- notification and device). An interaction lives in the same day as that log row and `herald prune` drops both
-- together; the unique key, which has to hold the partition key, is therefore fixed for a (notification, device) and
-- records each (notification, device, action) once, however often the app repeats it.
--
-- position orders the listing (GET /api/v1/interactions, read on from a cursor). It is given after commit, not at
-- insert: a reader first numbers the committed interactions that have none (one reader at a time, under an advisory
-- lock, from push_interaction_positions), then reads by number. An interaction whose recording committed late gets a
-- later number than those already read, never a number a reader has moved past, so a reader that keeps its cursor
-- reads each interaction once. (Numbers taken at insert, or transaction ids, commit out of order: a reader would skip
-- one committed after a later one; waiting for the oldest running transaction instead would tie the listing to
-- every long transaction in the cluster.)
--
-- No foreign keys, as in the log (Migrations/0012): a user's interactions go with the user through a trigger, and
-- a device's or notification's id stays as history.
CREATE TABLE push_interactions (
    id uuid NOT NULL DEFAULT herald_uuid_v7(),
    notification_id uuid NOT NULL,
    device_token_id uuid NOT NULL,
    user_id uuid NOT NULL,
    app_id uuid,
    notification_type text NOT NULL,
    -- opened, dismissed, or the app's own action identifier.
    action text NOT NULL,
    reply_text text,
    sent_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    position bigint,

    CONSTRAINT push_interactions_pkey PRIMARY KEY (sent_at, id),
    CONSTRAINT push_interactions_once UNIQUE (sent_at, notification_id, device_token_id, action),
    CONSTRAINT push_interactions_action_format CHECK (
        char_length(action) BETWEEN 1 AND 64 AND action !~ '[[:cntrl:]]'
    ),
    CONSTRAINT push_interactions_reply_size CHECK (octet_length(reply_text) <= 4096)
) PARTITION BY RANGE (sent_at);

-- A partition for each day the log has one, so interactions with pushes already sent find theirs.
DO $$
DECLARE
    bounds text[];
BEGIN
    FOR bounds IN
        SELECT regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)')
        FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'push_notification_logs'::regclass
    LOOP
        CONTINUE WHEN bounds IS NULL;
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF push_interactions FOR VALUES FROM (%L) TO (%L)',
            'push_interactions_p' || to_char(bounds[1]::timestamptz AT TIME ZONE 'UTC', 'YYYYMMDD'),
            bounds[1], bounds[2]);
    END LOOP;
END
$$;
CREATE TABLE push_interactions_default PARTITION OF push_interactions DEFAULT;

CREATE SEQUENCE push_interaction_positions AS bigint;

-- The listing's order, alone and after each of its filters that narrows most; those still to number; statistics by
-- time.
CREATE INDEX push_interactions_feed ON push_interactions (position);
CREATE INDEX push_interactions_user ON push_interactions (user_id, position);
CREATE INDEX push_interactions_notification ON push_interactions (notification_id, position);
CREATE INDEX push_interactions_unnumbered ON push_interactions (created_at, id) WHERE position IS NULL;
CREATE INDEX push_interactions_created ON push_interactions (created_at);

CREATE FUNCTION herald_interactions_forget_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM push_interactions WHERE user_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;
CREATE TRIGGER users_forget_interactions AFTER DELETE ON users
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION herald_interactions_forget_users();
