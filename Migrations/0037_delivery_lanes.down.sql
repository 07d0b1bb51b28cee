-- Reverts 0037_delivery_lanes: one line for every delivery again, and no weights.
ALTER TABLE deliveries DROP COLUMN lane, DROP COLUMN app_id;
ALTER TABLE notifications DROP COLUMN lane;
ALTER TABLE apps DROP COLUMN delivery_weight;
