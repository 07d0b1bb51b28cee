-- Per-project overrides of a user's personal preferences, resolved as: global toggle off -> never;
-- push_muted -> never; else the override when not NULL, else the personal toggle for the type.
-- A row exists only once a user customises a project; NULL in an override column means "use personal".
-- Rows are keyed to users and projects, not to project_members, because the owner (who may have no
-- membership row) has preferences too. Removing a membership should delete the row in the same
-- transaction.

CREATE TABLE project_member_preferences (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,

    push_notify_new_feedback boolean,
    push_notify_new_comments boolean,
    push_notify_votes boolean,
    push_notify_status_changes boolean,
    push_muted boolean NOT NULL DEFAULT FALSE,

    email_notify_new_feedback boolean,
    email_notify_new_comments boolean,
    email_muted boolean NOT NULL DEFAULT FALSE,

    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT unique_user_project UNIQUE (user_id, project_id)
);

-- No separate index on user_id: unique_user_project leads with user_id and serves those lookups and
-- the cascade from users. The project index serves expansion, which reads a whole project's overrides
-- at once, and the cascade from projects.
CREATE INDEX idx_project_member_prefs_project ON project_member_preferences (project_id);
