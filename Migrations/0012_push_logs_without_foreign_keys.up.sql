-- The delivery log gains a row for every attempt, so whatever its insert costs is paid at the delivery rate.
-- Its three foreign keys made PostgreSQL look up and lock the user, device and project of every row (dropping
-- them cut PostgreSQL's CPU time per delivery on the delivery benchmark by about a tenth). They also made a
-- user deleted while a batch was being recorded fail the whole batch's COPY.
--
-- Deletes still reach the log, through statement-level triggers: a user's rows go with the user (privacy), a
-- device's or a project's rows lose the reference and stay as history, as the foreign keys' actions did. A log
-- row written for a user, device or project deleted in the same instant can keep its reference; pruning by age
-- removes it. TRUNCATE fires no DELETE triggers: truncating users, devices or projects leaves their log rows.

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

-- A user's deletion deletes their devices first (a cascade); their log rows are about to go, so they are left alone.
CREATE FUNCTION herald_logs_detach_devices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE push_notification_logs AS l SET device_token_id = NULL
    WHERE l.device_token_id IN (SELECT id FROM deleted) AND EXISTS (SELECT FROM users AS u WHERE u.id = l.user_id);
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
