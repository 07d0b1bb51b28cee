-- herald:no-transaction
-- The claim's index gains the delivery's id after its due time, so a claim can start right after the last delivery
-- claimed in its lane and app: `(next_attempt_at, id) > (…)`. The deliveries claimed before it stay in the index
-- while they are in flight (a claim is a HOT update, and a sent delivery is deleted only when its answer is
-- recorded); a claim that started from the front stepped over every one of them, up to the send window's 2,000, and
-- read each from the table to see it was no longer pending. The rows of one fan-out share their due time, so the id
-- is what tells them apart. Built concurrently beside deliveries_due_idx, which 0049 then drops.
CREATE INDEX CONCURRENTLY deliveries_claim_idx
    ON deliveries (lane, (coalesce(app_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at, id)
    WHERE finished_at IS NULL;
