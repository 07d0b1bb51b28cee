CREATE INDEX deliveries_claim_idx ON deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX deliveries_lease_idx ON deliveries (lease_expires_at) WHERE state = 'sending';
DROP INDEX deliveries_open_idx;
ALTER TABLE deliveries RESET (fillfactor);
