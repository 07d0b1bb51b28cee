-- Notifications: one row per accepted event or direct send, the first stage of the outbox. The API
-- stores the row, sends NOTIFY and answers 202; expansion, when send_at is due, turns it into one
-- delivery per device (0009) and one suppression per silenced recipient (0008).
--
-- Lifecycle (state):
--   scheduled -> expanded  Expansion locks the row (FOR UPDATE SKIP LOCKED), inserts its deliveries and
--                          suppressions and sets expanded_at in one transaction. A crash rolls all of it
--                          back, so no intermediate 'expanding' state or lease is needed.
--   scheduled -> canceled  Canceled before it was due: never expanded.
--   expanded  -> canceled  Canceled later: its deliveries not yet sent become 'canceled'; expanded_at stays.
-- Only scheduled rows may have send_at or content changed (PATCH); the due index covers exactly them.

CREATE TABLE notifications (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- event: POST /events, recipients from the event's rules; direct: POST /notifications, test pushes.
    kind text NOT NULL,
    -- new_feedback, new_comment, new_vote, status_change; direct sends may also use a custom type.
    type text NOT NULL,
    project_id uuid REFERENCES projects (id) ON DELETE SET NULL,
    -- The backend's project id as given, still readable after the project is deleted.
    project_external_id text,
    -- The key that sent it. NULL when a user (test push) or the command line started it.
    api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
    -- What to send: alert, badge, sound, custom data and APNs options (push type, priority, collapse
    -- id, thread id...), and for events the event's opaque facts (feedback id and title, statuses...).
    content jsonb NOT NULL,
    -- Whom to send to: userIds / deviceIds / projectId for direct sends; actor, submitter and voters
    -- for events.
    targets jsonb NOT NULL,
    -- FALSE only for direct sends that bypass personal preferences (respectPreferences: false).
    respect_preferences boolean NOT NULL DEFAULT TRUE,
    send_at timestamptz NOT NULL DEFAULT now(),
    -- Neither Herald nor Apple tries after this (deliveries end as 'expired'); NULL: no limit.
    expires_at timestamptz,
    state text NOT NULL DEFAULT 'scheduled',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    expanded_at timestamptz,
    canceled_at timestamptz,

    CONSTRAINT notifications_kind_valid CHECK (kind IN ('event', 'direct')),
    CONSTRAINT notifications_type_format CHECK (
        char_length(type) BETWEEN 1 AND 50 AND type !~ '[[:cntrl:]]'
    ),
    CONSTRAINT notifications_event_type_valid CHECK (
        kind <> 'event' OR type IN ('new_feedback', 'new_comment', 'new_vote', 'status_change')
    ),
    CONSTRAINT notifications_event_has_project CHECK (kind <> 'event' OR project_external_id IS NOT NULL),
    CONSTRAINT notifications_event_respects_preferences CHECK (kind <> 'event' OR respect_preferences),
    CONSTRAINT notifications_project_external_id_format CHECK (
        project_external_id ~ '^[A-Za-z0-9._:@-]{1,128}$'
    ),
    CONSTRAINT notifications_project_named CHECK (project_id IS NULL OR project_external_id IS NOT NULL),
    CONSTRAINT notifications_content_object CHECK (jsonb_typeof(content) = 'object'),
    CONSTRAINT notifications_targets_object CHECK (jsonb_typeof(targets) = 'object'),
    CONSTRAINT notifications_expires_after_send CHECK (expires_at > send_at),
    CONSTRAINT notifications_state_valid CHECK (state IN ('scheduled', 'expanded', 'canceled')),
    CONSTRAINT notifications_state_times CHECK (
        (state = 'scheduled' AND expanded_at IS NULL AND canceled_at IS NULL)
        OR (state = 'expanded' AND expanded_at IS NOT NULL AND canceled_at IS NULL)
        OR (state = 'canceled' AND canceled_at IS NOT NULL)
    )
);

-- What the expander polls for: "due and not yet expanded", oldest first.
--   SELECT id FROM notifications
--   WHERE state = 'scheduled' AND send_at <= now()
--   ORDER BY send_at LIMIT $1 FOR UPDATE SKIP LOCKED
-- Also gives the time of the next scheduled one, to sleep until then.
CREATE INDEX notifications_due_idx ON notifications (send_at) WHERE state = 'scheduled';

-- Serve the ON DELETE SET NULL actions, so deleting a project or key never scans this table.
CREATE INDEX notifications_project_id_idx ON notifications (project_id);
CREATE INDEX notifications_api_key_id_idx ON notifications (api_key_id);
