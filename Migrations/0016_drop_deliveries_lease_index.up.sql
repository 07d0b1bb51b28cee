-- herald:no-transaction
-- It indexed lease_expires_at, which every claim sets, and its predicate named state (see 0013). The rescuer
-- reads the open-deliveries index instead.
DROP INDEX CONCURRENTLY deliveries_lease_idx;
