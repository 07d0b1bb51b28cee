-- Reverts 0005_api_keys.

DROP TABLE api_keys;
