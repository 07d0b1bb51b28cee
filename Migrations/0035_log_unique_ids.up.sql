-- Apple's apns-unique-id for each answered push (sandbox answers carry it): the handle Apple's Push Notifications
-- Console looks a push up by. Added to the partitioned log, so every partition has it and new days copy it.
ALTER TABLE push_notification_logs ADD COLUMN apns_unique_id text;
