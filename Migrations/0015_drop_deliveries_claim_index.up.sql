-- herald:no-transaction
-- Its predicate (state = 'pending') kept claims from being HOT updates (see 0013). A release from before 0013 would
-- now find due rows by scanning the table: roll this release out to every process first.
DROP INDEX CONCURRENTLY deliveries_claim_idx;
