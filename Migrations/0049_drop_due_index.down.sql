-- herald:no-transaction
-- Reverts 0049_drop_due_index.
CREATE INDEX CONCURRENTLY deliveries_due_idx
    ON deliveries (lane, (coalesce(app_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at)
    WHERE finished_at IS NULL;
