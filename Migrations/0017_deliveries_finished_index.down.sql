-- herald:no-transaction
DROP INDEX CONCURRENTLY deliveries_finished_idx;
