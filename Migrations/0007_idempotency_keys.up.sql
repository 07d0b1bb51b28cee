-- Idempotency-Key support for POST /events and POST /notifications: a retried request with the same
-- key returns the first answer and creates nothing; keys are kept 24 hours.
--
-- A table of its own rather than columns on notifications: keys live 24 hours while notifications
-- live until pruned, so expiry is a plain DELETE here and never rewrites notification rows; the stored
-- answer is replayed verbatim; and the request hash lets a key reused with a different body be
-- refused instead of silently answered with another request's result.
--
-- Keys are scoped by API key (only API keys may post these routes). Only accepted requests are
-- recorded: a request that failed wrote nothing, so retrying it runs it again. Use:
--   1. DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2
--      AND created_at < now() - interval '24 hours'                  (an expired key is free again)
--   2. in one transaction, insert the notification, then this row with ON CONFLICT DO NOTHING;
--      no row inserted means a concurrent or earlier request won: roll back and read its row
--      (same request_hash: replay response_status/response_body; different: refuse the request).
-- The insert waits on the primary key while a concurrent request with the same key is in flight, so
-- exactly one of them creates a notification.

CREATE TABLE idempotency_keys (
    api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    key text NOT NULL,
    -- SHA-256 (hex) of the method, path and body of the first request.
    request_hash text NOT NULL,
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    response_status integer NOT NULL,
    response_body jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),

    PRIMARY KEY (api_key_id, key),
    -- Printable ASCII, as HTTP header values allow.
    CONSTRAINT idempotency_keys_key_format CHECK (key ~ '^[!-~]{1,255}$'),
    CONSTRAINT idempotency_keys_request_hash_format CHECK (request_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT idempotency_keys_response_status_success CHECK (response_status BETWEEN 200 AND 299)
);

-- Expiry: DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
-- Serves the cascade from notifications.
CREATE INDEX idempotency_keys_notification_id_idx ON idempotency_keys (notification_id);
