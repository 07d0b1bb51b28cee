-- Reverts 0030_activity_ownership: activity ids are unique per device again. Tokens removed as conflicting stay
-- removed.

ALTER TABLE device_tokens DROP CONSTRAINT device_tokens_activity_bound;
DROP TABLE live_activities;
