-- herald:no-transaction
-- The index 0041's notification_audience_keys is for: the events naming a person as submitter or voter. Built
-- concurrently, so acceptance and expansion go on meanwhile.
CREATE INDEX CONCURRENTLY notifications_audience_idx ON notifications USING gin (notification_audience_keys(targets))
    WHERE kind = 'event';
