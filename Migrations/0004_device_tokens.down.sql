-- Reverts 0004_device_tokens.

DROP TABLE device_tokens;
