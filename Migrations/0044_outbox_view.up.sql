-- What GET /api/v1/outbox shows an operator beside the outbox's own rows: each delivering process, and each signing
-- key Apple refused.
--
-- delivery_workers: every engine writes its row every few seconds (DeliveryEngine's heartbeat) and deletes it when
-- it stops; a row not seen for a minute is a process that died, shown as such, and gone after a day. It carries the
-- process's pushes in flight and its sending pause (a service or credential refusal): until when, why, and how many
-- pauses in a row (each one longer).
CREATE TABLE delivery_workers (
    worker text PRIMARY KEY,
    host text NOT NULL,
    started_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    in_flight integer NOT NULL DEFAULT 0,
    paused_until timestamptz,
    pause_reason text,
    consecutive_pauses integer NOT NULL DEFAULT 0,

    CONSTRAINT delivery_workers_in_flight_nonnegative CHECK (in_flight >= 0)
);

-- A key the router paused after Apple refused it: until when, why, and when.
ALTER TABLE apns_signing_keys
    ADD COLUMN paused_until timestamptz,
    ADD COLUMN last_refusal_reason text,
    ADD COLUMN last_refused_at timestamptz;
