-- Reverts 0032_request_and_user_limits.
ALTER TABLE api_keys DROP COLUMN rate_limit;
