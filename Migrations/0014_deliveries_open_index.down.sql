-- herald:no-transaction
DROP INDEX CONCURRENTLY deliveries_open_idx;
