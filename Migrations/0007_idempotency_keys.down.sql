-- Reverts 0007_idempotency_keys.

DROP TABLE idempotency_keys;
