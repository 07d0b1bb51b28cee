-- An API key may carry its own rate limit (requests per second; bursts of twice that); NULL takes the server's
-- HERALD_RATE_LIMIT_PER_SECOND and HERALD_RATE_LIMIT_BURST.
ALTER TABLE api_keys
    ADD COLUMN rate_limit integer,
    ADD CONSTRAINT api_keys_rate_limit_range CHECK (rate_limit BETWEEN 1 AND 100000);

