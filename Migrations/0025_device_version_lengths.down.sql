-- Reverts 0025_device_version_lengths. Versions longer than 20 characters are cut to their first 20.

ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_app_version_length,
    DROP CONSTRAINT device_tokens_os_version_length;
UPDATE device_tokens SET app_version = left(app_version, 20) WHERE char_length(app_version) > 20;
UPDATE device_tokens SET os_version = left(os_version, 20) WHERE char_length(os_version) > 20;
ALTER TABLE device_tokens
    ADD CONSTRAINT device_tokens_app_version_length CHECK (char_length(app_version) BETWEEN 1 AND 20),
    ADD CONSTRAINT device_tokens_os_version_length CHECK (char_length(os_version) BETWEEN 1 AND 20);
