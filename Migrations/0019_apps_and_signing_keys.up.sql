-- Several apps and signing keys in one Herald. An app is the backend's id for one bundle id on one team; a signing
-- key is one of that team's APNs auth keys (.p8), team-scoped or limited to some topics, allowed for one or both
-- environments. The settings of a single-app installation (APNS_BUNDLE_ID, APNS_TEAM_ID, APNS_KEY_ID, ...) become
-- the default app and its key at start-up, and devices registered before this migration belong to that app.
CREATE TABLE apps (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    external_id text NOT NULL UNIQUE,
    name text NOT NULL,
    bundle_id text NOT NULL UNIQUE,
    team_id text NOT NULL,
    default_environment text NOT NULL,
    -- The app of registrations and sends that name none; at most one.
    is_default boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT apps_external_id_format CHECK (external_id ~ '^[A-Za-z0-9._:@-]{1,128}$'),
    CONSTRAINT apps_name_length CHECK (char_length(name) BETWEEN 1 AND 256),
    CONSTRAINT apps_bundle_id_format CHECK (bundle_id ~ '^[A-Za-z0-9.-]{1,255}$'),
    CONSTRAINT apps_team_id_format CHECK (team_id ~ '^[A-Za-z0-9]{1,32}$'),
    CONSTRAINT apps_default_environment_valid CHECK (default_environment IN ('sandbox', 'production'))
);
CREATE UNIQUE INDEX apps_one_default ON apps (is_default) WHERE is_default;

CREATE TABLE apns_signing_keys (
    team_id text NOT NULL,
    key_id text NOT NULL,
    -- Which environments the key may sign for: both, sandbox or production.
    environments text NOT NULL DEFAULT 'both',
    -- Empty for a team-scoped key; else the only topics (bundle ids) a topic-specific key may sign for.
    topics text[] NOT NULL DEFAULT '{}',
    -- The key material: a PEM file on the host, or the PEM sealed with AES-256-GCM under the master key
    -- (HERALD_MASTER_KEY_FILE) as nonce || ciphertext || tag. Exactly one of the two.
    key_path text,
    sealed_key bytea,
    -- active signs new tokens; retiring finishes what is in flight and signs nothing new; retired is kept for the
    -- record.
    state text NOT NULL DEFAULT 'active',
    created_at timestamptz NOT NULL DEFAULT now(),
    retired_at timestamptz,
    PRIMARY KEY (team_id, key_id),
    CONSTRAINT apns_signing_keys_team_id_format CHECK (team_id ~ '^[A-Za-z0-9]{1,32}$'),
    CONSTRAINT apns_signing_keys_key_id_format CHECK (key_id ~ '^[A-Za-z0-9]{1,32}$'),
    CONSTRAINT apns_signing_keys_environments_valid CHECK (environments IN ('both', 'sandbox', 'production')),
    CONSTRAINT apns_signing_keys_state_valid CHECK (state IN ('active', 'retiring', 'retired')),
    CONSTRAINT apns_signing_keys_one_material CHECK ((key_path IS NULL) <> (sealed_key IS NULL)),
    CONSTRAINT apns_signing_keys_topic_count CHECK (cardinality(topics) <= 400)
);

-- NULL until the default app exists: the start-up that defines it claims every device without an app.
ALTER TABLE device_tokens ADD COLUMN app_id uuid REFERENCES apps (id) ON DELETE CASCADE;
CREATE INDEX device_tokens_app ON device_tokens (app_id);
