-- herald:no-transaction
-- Reverts 0038_deliveries_due_index.
DROP INDEX CONCURRENTLY IF EXISTS deliveries_due_idx;
