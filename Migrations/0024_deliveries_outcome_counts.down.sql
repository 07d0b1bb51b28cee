-- Reverts 0024_deliveries_outcome_counts.

DROP INDEX deliveries_finished_untyped_idx;
DROP INDEX deliveries_finished_idx;
ALTER TABLE deliveries DROP COLUMN outcome, DROP COLUMN notification_type;
CREATE INDEX deliveries_finished_idx ON deliveries (finished_at) WHERE finished_at IS NOT NULL;
