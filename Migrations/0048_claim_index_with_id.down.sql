-- herald:no-transaction
-- Reverts 0048_claim_index_with_id.
DROP INDEX CONCURRENTLY IF EXISTS deliveries_claim_idx;
