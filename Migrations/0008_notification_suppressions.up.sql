-- Recipients that expansion silenced, with the reason: the answer to "why did user X get nothing?".
-- One row per (notification, user), carrying the first reason in resolution order:
--   global_off        the user's push_notifications_enabled is off
--   muted             the user muted the project (push_muted)
--   type_off          the personal toggle for this type is off and no project override is set
--   override_off      the project override for this type is off
--   no_active_device  the user would be notified but has no active device

CREATE TABLE notification_suppressions (
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reason text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),

    PRIMARY KEY (notification_id, user_id),
    CONSTRAINT notification_suppressions_reason_valid CHECK (
        reason IN ('global_off', 'muted', 'type_off', 'override_off', 'no_active_device')
    )
);

-- The primary key serves a notification's suppressions; this serves the cascade from users.
CREATE INDEX notification_suppressions_user_id_idx ON notification_suppressions (user_id);
