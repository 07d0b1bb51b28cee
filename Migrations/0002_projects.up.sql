-- Projects and their members: the audience of project events (owner + members).

-- owner_id is ON DELETE RESTRICT, not CASCADE. Deleting a user cascades only to what is personal to
-- them (devices, project preferences, memberships, deliveries, delivery logs). A project is shared by
-- its members, so deleting its owner must not silently take it and everyone's overrides with it:
-- DELETE /users/{id} of an owner fails (SQLSTATE 23503, answered as 409 conflict) until the backend
-- gives the project a new owner (PUT /projects/{id}) or deletes it (DELETE /projects/{id}).
CREATE TABLE projects (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    external_id text NOT NULL,
    name text NOT NULL,
    owner_id uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT projects_external_id_key UNIQUE (external_id),
    CONSTRAINT projects_external_id_format CHECK (external_id ~ '^[A-Za-z0-9._:@-]{1,128}$'),
    CONSTRAINT projects_name_length CHECK (char_length(name) BETWEEN 1 AND 256)
);

-- Serves the RESTRICT check when a user is deleted and "projects owned by U".
CREATE INDEX projects_owner_id_idx ON projects (owner_id);

-- Membership carries no role: recipients are owner + members alike, and nothing in Herald reads a
-- role. The owner need not have a row here; readers take owner UNION members.
CREATE TABLE project_members (
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),

    PRIMARY KEY (project_id, user_id)
);

-- The primary key serves "members of P"; this one serves the cascade from users and "projects of U".
CREATE INDEX project_members_user_id_idx ON project_members (user_id);
