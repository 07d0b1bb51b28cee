-- herald:no-transaction
-- The claim's index since lanes (0037): open deliveries by lane, app and due time, so the claim reads each lane's
-- and app's due rows in order, and finds which lanes and apps have any by skipping from one to the next. Deliveries
-- of a device without an app (registered before the default app was defined) count as the app with the nil id.
-- Built concurrently: expansion, claims and results go on meanwhile.
CREATE INDEX CONCURRENTLY deliveries_due_idx
    ON deliveries (lane, (coalesce(app_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at)
    WHERE finished_at IS NULL;
