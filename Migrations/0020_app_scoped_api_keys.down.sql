-- Going down would widen every app's key to every app, so it revokes them instead of keeping them.
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE app_id IS NOT NULL;
DROP INDEX api_keys_app;
ALTER TABLE api_keys DROP COLUMN app_id;
