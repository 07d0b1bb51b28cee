-- An API key may belong to one app: it then sees and sends only for that app. Deleting the app deletes its keys
-- (never SET NULL, which would turn them into keys of every app).
ALTER TABLE api_keys ADD COLUMN app_id uuid REFERENCES apps (id) ON DELETE CASCADE;
CREATE INDEX api_keys_app ON api_keys (app_id) WHERE app_id IS NOT NULL;
