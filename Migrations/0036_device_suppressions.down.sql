-- Reverts 0036_device_suppressions: suppressions name recipients only; the rows of single devices go.
DELETE FROM notification_suppressions WHERE device_token_id IS NOT NULL;
DROP INDEX notification_suppressions_key;
ALTER TABLE notification_suppressions
    DROP COLUMN device_token_id,
    ADD PRIMARY KEY (notification_id, user_id);
