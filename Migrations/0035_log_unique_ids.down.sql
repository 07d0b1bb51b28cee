-- Reverts 0035_log_unique_ids: log rows lose Apple's apns-unique-id.
ALTER TABLE push_notification_logs DROP COLUMN apns_unique_id;
