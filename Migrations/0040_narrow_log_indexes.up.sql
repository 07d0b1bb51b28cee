-- Log indexes only as wide as their filters. Every log row was an entry in seven indexes; two of them held entries no
-- filter reads:
--   status   GET /api/v1/logs?status=S reads it for the rare states (failed, token_expired, retrying, expired,
--            canceled); for `sent`, nearly every row, the primary key read newest first finds a page at once. So it
--            keeps only rows that are not `sent`, and a sent push, the common case, adds no entry.
--   project  projectId is never null in a filter, nor in the trigger that detaches a deleted project's rows (which
--            now says so, for the planner to see the index fits); direct sends without a project add no entry.
-- Each is built on every day partition under a lock that holds log writes (the engine's results wait, none fails)
-- until it is built: the rows that are not `sent`, and those with a project, are a small part of a day.
CREATE INDEX idx_push_logs_unsent ON push_notification_logs (status, created_at, id) WHERE status <> 'sent';
DROP INDEX idx_push_logs_status;
CREATE INDEX idx_push_logs_project_set ON push_notification_logs (project_id, created_at, id)
    WHERE project_id IS NOT NULL;
DROP INDEX idx_push_logs_project;

CREATE OR REPLACE FUNCTION herald_logs_detach_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE push_notification_logs SET project_id = NULL
    WHERE project_id IS NOT NULL AND project_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;
