-- Schedules you can manage (seed 002 FR-3): a direct send carries the backend's tags (a laundry machine, a timer
-- kind), so everything scheduled under a tag can be listed and canceled at once. Tags never change after the send
-- is accepted.
--
-- The column has a constant default, so adding it rewrites nothing; building the index reads the table once, under
-- a lock that holds back new notifications (not deliveries) for that time.

ALTER TABLE notifications
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
    ADD CONSTRAINT notifications_tags_count CHECK (cardinality(tags) <= 16);

-- What GET /notifications?tag= and DELETE /notifications?tag= look for: tags @> ARRAY[$tag].
CREATE INDEX notifications_tags_idx ON notifications USING gin (tags) WHERE cardinality(tags) > 0;
