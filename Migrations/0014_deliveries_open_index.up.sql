-- herald:no-transaction
-- Open deliveries in next_attempt_at order, for the claim and the rescuer (see 0013). Built concurrently, so
-- expansion, claims and results go on while it is built; until 0015 and 0016 drop the old indexes, a release
-- before this one keeps claiming through them.
CREATE INDEX CONCURRENTLY deliveries_open_idx ON deliveries (next_attempt_at) WHERE finished_at IS NULL;
