-- Reverts 0040_narrow_log_indexes: the status and project indexes hold every row again.
CREATE INDEX idx_push_logs_status ON push_notification_logs (status, created_at, id);
DROP INDEX idx_push_logs_unsent;
CREATE INDEX idx_push_logs_project ON push_notification_logs (project_id, created_at, id);
DROP INDEX idx_push_logs_project_set;

CREATE OR REPLACE FUNCTION herald_logs_detach_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE push_notification_logs SET project_id = NULL WHERE project_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;
