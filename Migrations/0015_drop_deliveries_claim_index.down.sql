-- herald:no-transaction
CREATE INDEX CONCURRENTLY deliveries_claim_idx ON deliveries (next_attempt_at) WHERE state = 'pending';
