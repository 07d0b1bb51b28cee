-- API keys of application backends. Only a SHA-256 of the key is stored; the key is shown once when
-- created. prefix is its visible start, so operators can tell keys apart in listings.
-- Scopes: admin (every route), send (events and notifications), read (logs and stats).
-- Keys are revoked, not deleted, so notifications keep pointing at the key that sent them.

CREATE TABLE api_keys (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL,
    prefix text NOT NULL,
    key_hash text NOT NULL,
    scope text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at timestamptz,

    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
    CONSTRAINT api_keys_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
    CONSTRAINT api_keys_prefix_format CHECK (prefix ~ '^[A-Za-z0-9_-]{4,32}$'),
    CONSTRAINT api_keys_key_hash_format CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT api_keys_scope_valid CHECK (scope IN ('admin', 'send', 'read')),
    CONSTRAINT api_keys_revoked_after_created CHECK (revoked_at >= created_at)
);
