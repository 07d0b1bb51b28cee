-- herald:no-transaction
-- deliveries_claim_idx (0048) serves every read deliveries_due_idx served: the claim, and the lanes and apps with due
-- work. Dropped concurrently: claims and results go on meanwhile.
DROP INDEX CONCURRENTLY IF EXISTS deliveries_due_idx;
