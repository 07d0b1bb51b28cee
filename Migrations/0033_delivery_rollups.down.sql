-- Reverts 0033_delivery_rollups: statistics scan the log again.
DROP TRIGGER push_log_minutes_count_insert ON push_notification_logs;
DROP TRIGGER push_log_minutes_count_update ON push_notification_logs;
DROP TRIGGER push_log_minutes_count_delete ON push_notification_logs;
DROP FUNCTION push_log_minutes_count();
DROP FUNCTION push_log_minutes_add_from_log(timestamptz, timestamptz);
DROP TABLE push_log_minutes;
