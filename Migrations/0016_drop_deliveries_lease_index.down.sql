-- herald:no-transaction
CREATE INDEX CONCURRENTLY deliveries_lease_idx ON deliveries (lease_expires_at) WHERE state = 'sending';
