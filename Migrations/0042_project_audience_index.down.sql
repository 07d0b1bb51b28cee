-- herald:no-transaction
-- Reverts 0042_project_audience_index.
DROP INDEX CONCURRENTLY IF EXISTS notifications_audience_idx;
