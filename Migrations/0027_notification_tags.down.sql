-- Reverts 0027_notification_tags. The tags of stored notifications are lost.

DROP INDEX notifications_tags_idx;
ALTER TABLE notifications DROP CONSTRAINT notifications_tags_count, DROP COLUMN tags;
