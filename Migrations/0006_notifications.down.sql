-- Reverts 0006_notifications.

DROP TABLE notifications;
