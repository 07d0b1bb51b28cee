-- Users: the backend's people as Herald knows them, with their personal push and email preferences.
--
-- Conventions for the whole schema:
-- * Internal keys are UUIDs; the API speaks the backend's own string ids (external_id).
-- * Closed sets are text columns with named CHECK constraints rather than enum types, so a later
--   migration can widen a set with one ALTER and errors name the rule that was broken.
-- * No triggers. Writers set updated_at themselves (one explicit rule, no hidden work per row on the
--   hot delivery tables); wake-ups use NOTIFY from application code.

CREATE TABLE users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    external_id text NOT NULL,
    email text NOT NULL,
    name text NOT NULL,

    -- Personal push preferences. Opt-out model: everything starts enabled.
    push_notifications_enabled boolean NOT NULL DEFAULT TRUE,
    push_notify_new_feedback boolean NOT NULL DEFAULT TRUE,
    push_notify_new_comments boolean NOT NULL DEFAULT TRUE,
    push_notify_votes boolean NOT NULL DEFAULT TRUE,
    push_notify_status_changes boolean NOT NULL DEFAULT TRUE,
    -- How pushes look on the device: payloads omit sound or badge when these are off.
    push_sound_enabled boolean NOT NULL DEFAULT TRUE,
    push_badge_enabled boolean NOT NULL DEFAULT TRUE,

    -- Personal email preferences, read by the mail notifier through the API.
    email_notifications_enabled boolean NOT NULL DEFAULT TRUE,
    email_notify_new_feedback boolean NOT NULL DEFAULT TRUE,
    email_notify_new_comments boolean NOT NULL DEFAULT TRUE,
    email_notify_votes boolean NOT NULL DEFAULT TRUE,
    email_notify_status_changes boolean NOT NULL DEFAULT TRUE,

    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT users_external_id_key UNIQUE (external_id),
    CONSTRAINT users_external_id_format CHECK (external_id ~ '^[A-Za-z0-9._:@-]{1,128}$'),
    CONSTRAINT users_email_format CHECK (
        char_length(email) <= 254 AND email ~ '^[^[:space:]@]+@[^[:space:]@]+$'
    ),
    CONSTRAINT users_name_length CHECK (char_length(name) BETWEEN 1 AND 256)
);

-- Events name submitters and voters by email, so one address must lead to at most one user whatever
-- its case. Look users up with lower(email) = lower($1) so this index serves the lookup.
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
