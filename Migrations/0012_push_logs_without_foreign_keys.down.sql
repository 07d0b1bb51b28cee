DROP TRIGGER projects_detach_logs ON projects;
DROP TRIGGER device_tokens_detach_logs ON device_tokens;
DROP TRIGGER users_forget_logs ON users;
DROP FUNCTION herald_logs_detach_projects();
DROP FUNCTION herald_logs_detach_devices();
DROP FUNCTION herald_logs_forget_users();

-- Rows that outlived their user, device or project in the instant between a delete and a log write.
DELETE FROM push_notification_logs AS l WHERE NOT EXISTS (SELECT FROM users AS u WHERE u.id = l.user_id);
UPDATE push_notification_logs AS l SET device_token_id = NULL
WHERE device_token_id IS NOT NULL AND NOT EXISTS (SELECT FROM device_tokens AS t WHERE t.id = l.device_token_id);
UPDATE push_notification_logs AS l SET project_id = NULL
WHERE project_id IS NOT NULL AND NOT EXISTS (SELECT FROM projects AS p WHERE p.id = l.project_id);

ALTER TABLE push_notification_logs
    ADD CONSTRAINT push_notification_logs_user_id_fkey
        FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    ADD CONSTRAINT push_notification_logs_device_token_id_fkey
        FOREIGN KEY (device_token_id) REFERENCES device_tokens (id) ON DELETE SET NULL,
    ADD CONSTRAINT push_notification_logs_project_id_fkey
        FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE SET NULL;
