-- One APNs provider token per signing key for the whole fleet. Apple may refuse a key's token when it is
-- replaced within 20 minutes (TooManyProviderTokenUpdates), so every process and every restart uses the newest
-- row here instead of signing its own. A renewal inserts the next generation; the primary key lets exactly one
-- process win each renewal and every other adopts its token. The token is a bearer credential: it is kept only
-- here, never logged or returned by the API.
CREATE TABLE apns_provider_tokens (
    team_id text NOT NULL,
    key_id text NOT NULL,
    generation bigint NOT NULL CHECK (generation > 0),
    token text NOT NULL,
    issued_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, key_id, generation)
);
