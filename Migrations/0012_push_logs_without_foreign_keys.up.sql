-- The delivery log gains a row for every attempt, so whatever its insert costs is paid at the delivery rate.
-- Its three foreign keys made PostgreSQL look up and lock the user, device and project of every row: on the
-- delivery benchmark that was about a ninth of PostgreSQL's time per delivery. They also made a user deleted
-- while a batch was being recorded fail the whole batch's COPY.
--
-- Deletes still reach the log, through statement-level triggers: a user's rows go with the user (privacy), a
-- device's or a project's rows lose the reference and stay as history, as the foreign keys' actions did. A log
-- row written for a user deleted in the same instant can outlive them; pruning by age removes it.

ALTER TABLE push_notification_logs
    DROP CONSTRAINT push_notification_logs_user_id_fkey,
    DROP CONSTRAINT push_notification_logs_device_token_id_fkey,
    DROP CONSTRAINT push_notification_logs_project_id_fkey;

CREATE FUNCTION herald_logs_forget_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM push_notification_logs WHERE user_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;

CREATE FUNCTION herald_logs_detach_devices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE push_notification_logs SET device_token_id = NULL WHERE device_token_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;

CREATE FUNCTION herald_logs_detach_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE push_notification_logs SET project_id = NULL WHERE project_id IN (SELECT id FROM deleted);
    RETURN NULL;
END
$$;

CREATE TRIGGER users_forget_logs AFTER DELETE ON users
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION herald_logs_forget_users();
CREATE TRIGGER device_tokens_detach_logs AFTER DELETE ON device_tokens
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION herald_logs_detach_devices();
CREATE TRIGGER projects_detach_logs AFTER DELETE ON projects
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION herald_logs_detach_projects();
