-- Reverts 0044_outbox_view.
ALTER TABLE apns_signing_keys
    DROP COLUMN IF EXISTS paused_until,
    DROP COLUMN IF EXISTS last_refusal_reason,
    DROP COLUMN IF EXISTS last_refused_at;
DROP TABLE IF EXISTS delivery_workers;
