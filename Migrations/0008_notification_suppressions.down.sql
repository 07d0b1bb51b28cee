-- Reverts 0008_notification_suppressions.

DROP TABLE notification_suppressions;
