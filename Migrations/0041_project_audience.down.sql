-- Reverts 0041_project_audience.
DROP FUNCTION IF EXISTS notification_audience_keys(jsonb);
