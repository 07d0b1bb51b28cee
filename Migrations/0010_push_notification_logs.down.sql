-- Reverts 0010_push_notification_logs.

DROP TABLE push_notification_logs;
