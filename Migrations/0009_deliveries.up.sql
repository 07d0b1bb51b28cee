-- Deliveries: the outbox proper, one row per (notification, device). Expansion inserts them pending;
-- workers in any number of processes claim, send and record them. The row id is the apns-id, so a
-- resend after a lost answer reuses it and Apple's records match Herald's.
--
-- States:  pending -> sending -> sent | failed | token_expired | expired   (or back to pending: retry)
--          pending -> canceled | expired                                    (canceled or too late)
-- A row is 'sending' exactly while a worker holds it: claimed_by names the worker and lease_expires_at
-- says when others may take it over. attempts counts claims, so it also bounds crash loops.
--
-- Claim (the partial index deliveries_claim_idx serves the CTE: rows come in next_attempt_at order
-- straight from the index, and SKIP LOCKED lets concurrent workers pass each other's rows):
--   WITH due AS (
--       SELECT id FROM deliveries
--       WHERE state = 'pending' AND next_attempt_at <= now()
--       ORDER BY next_attempt_at
--       LIMIT $1
--       FOR UPDATE SKIP LOCKED
--   )
--   UPDATE deliveries AS d
--   SET state = 'sending', claimed_by = $2, lease_expires_at = now() + $3::interval,
--       attempts = d.attempts + 1, updated_at = now()
--   WHERE d.id = ANY (ARRAY(SELECT id FROM due))
--   RETURNING d.id, d.notification_id, d.user_id, d.device_token_id, d.environment, d.attempts;
-- "= ANY (ARRAY(...))" rather than "FROM due WHERE d.id = due.id": with LIMIT $1 a prepared statement's
-- generic plan cannot size the CTE and joins it by hashing the whole table (a sequential scan on
-- every claim); the array form always looks the claimed ids up in the primary key.
--
-- Record results in bulk, only for rows still held by this worker (a row whose lease ran out may have
-- been taken over), e.g. UPDATE ... FROM unnest($1::uuid[], $2::text[], ...) AS r(id, state, ...)
-- WHERE d.id = r.id AND d.state = 'sending' AND d.claimed_by = $worker. Leaving 'sending' clears
-- claimed_by and lease_expires_at; retries go back to 'pending' with a later next_attempt_at; final
-- states set finished_at.
--
-- Rescue claims of dead workers (deliveries_lease_idx serves the inner SELECT):
--   UPDATE deliveries
--   SET state = 'pending', claimed_by = NULL, lease_expires_at = NULL, next_attempt_at = now(),
--       updated_at = now()
--   WHERE id = ANY (ARRAY(
--       SELECT id FROM deliveries
--       WHERE state = 'sending' AND lease_expires_at < now()
--       ORDER BY lease_expires_at
--       LIMIT $1
--       FOR UPDATE SKIP LOCKED
--   ));
--
-- user_id is the recipient at expansion time. A token can move to another user on re-registration;
-- workers cancel deliveries whose device no longer belongs to their user.
-- Deleting a device deletes its deliveries (nothing can be sent to it any more); the attempt history
-- stays in push_notification_logs. Writers of logs must expect a device or user to vanish mid-batch.

CREATE TABLE deliveries (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_token_id uuid NOT NULL REFERENCES device_tokens (id) ON DELETE CASCADE,
    -- The APNs server for the next attempt: the device's, or the other one for a BadDeviceToken retry.
    environment text NOT NULL,
    state text NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claimed_by text,
    lease_expires_at timestamptz,
    -- The last answer: HTTP status (NULL when none came) and Apple's reason or Herald's own
    -- (e.g. connection lost). The reason is peer-controlled text, so it is deliberately unconstrained:
    -- a strange answer must never make a write-back batch fail.
    last_status integer,
    last_reason text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,

    -- Expansion inserts with ON CONFLICT DO NOTHING, so a repeated expansion cannot duplicate a push.
    CONSTRAINT deliveries_notification_device_key UNIQUE (notification_id, device_token_id),
    CONSTRAINT deliveries_environment_valid CHECK (environment IN ('sandbox', 'production')),
    CONSTRAINT deliveries_state_valid CHECK (
        state IN ('pending', 'sending', 'sent', 'failed', 'token_expired', 'expired', 'canceled')
    ),
    CONSTRAINT deliveries_attempts_nonnegative CHECK (attempts >= 0),
    -- The claim increments attempts, so anything that reached Apple has at least one.
    CONSTRAINT deliveries_attempted CHECK (
        state NOT IN ('sending', 'sent', 'token_expired') OR attempts >= 1
    ),
    CONSTRAINT deliveries_claimed_by_length CHECK (char_length(claimed_by) BETWEEN 1 AND 200),
    CONSTRAINT deliveries_claim_matches_state CHECK (
        (state = 'sending' AND claimed_by IS NOT NULL AND lease_expires_at IS NOT NULL)
        OR (state <> 'sending' AND claimed_by IS NULL AND lease_expires_at IS NULL)
    ),
    CONSTRAINT deliveries_finished_matches_state CHECK (
        (state IN ('sent', 'failed', 'token_expired', 'expired', 'canceled')) = (finished_at IS NOT NULL)
    ),
    CONSTRAINT deliveries_last_status_range CHECK (last_status BETWEEN 100 AND 999)
)
-- A queue table: rows churn through several versions each, so vacuum and analyze it far more often
-- than the 20 % default, keeping the claim index free of dead entries.
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02);

-- The claim: due pending rows in next_attempt_at order. Small, because only pending rows are in it.
CREATE INDEX deliveries_claim_idx ON deliveries (next_attempt_at) WHERE state = 'pending';
-- The rescuer: claims whose lease ran out.
CREATE INDEX deliveries_lease_idx ON deliveries (lease_expires_at) WHERE state = 'sending';
-- The unique key serves a notification's deliveries (counts, listing, cancel, cascade). These serve
-- the cascades from devices and users, and canceling a deactivated device's pending deliveries.
CREATE INDEX deliveries_device_token_id_idx ON deliveries (device_token_id);
CREATE INDEX deliveries_user_id_idx ON deliveries (user_id);
