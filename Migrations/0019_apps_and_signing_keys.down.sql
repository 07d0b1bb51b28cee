DROP INDEX device_tokens_app;
ALTER TABLE device_tokens DROP COLUMN app_id;
DROP TABLE apns_signing_keys;
DROP TABLE apps;
