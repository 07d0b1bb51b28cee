-- Who a project's notifications reach, beyond its owner and members: the submitter and voters its events name. They
-- may read and set their overrides for the project (GET/PATCH /api/v1/projects/{id}/notification-preferences),
-- which expansion already applies to every recipient.
--
-- notification_audience_keys(targets) lists the people an event's targets name, as 'u:<user id>' and
-- 'e:<lower-case email>' (emails are kept as the backend sent them), so one GIN index finds the events naming a
-- user by either (Migrations/0042 builds it). Votes recorded by Herald (feedback_votes) are looked up by their own
-- indexes.
CREATE OR REPLACE FUNCTION notification_audience_keys(targets jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT key), '{}')
    FROM (
        SELECT CASE WHEN person ? 'userId' THEN 'u:' || (person ->> 'userId')
                    ELSE 'e:' || lower(person ->> 'email') END
        FROM (
            SELECT targets -> 'submitter' WHERE jsonb_typeof(targets -> 'submitter') = 'object'
            UNION ALL
            SELECT jsonb_array_elements(targets -> 'voters') WHERE jsonb_typeof(targets -> 'voters') = 'array'
        ) AS people (person)
        WHERE jsonb_typeof(person) = 'object'
    ) AS keys (key)
    WHERE key IS NOT NULL
$$;
