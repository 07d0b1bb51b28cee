-- Apps report their versions as the system words them: Foundation's operatingSystemVersionString on iOS is
-- "Version 18.0 (Build 22A3354)", 28 characters, which the 20-character limit of 0004 refused, so such a device was
-- never registered. 64 characters leave room for every format Apple's systems use.

ALTER TABLE device_tokens
    DROP CONSTRAINT device_tokens_app_version_length,
    DROP CONSTRAINT device_tokens_os_version_length,
    ADD CONSTRAINT device_tokens_app_version_length CHECK (char_length(app_version) BETWEEN 1 AND 64),
    ADD CONSTRAINT device_tokens_os_version_length CHECK (char_length(os_version) BETWEEN 1 AND 64);
