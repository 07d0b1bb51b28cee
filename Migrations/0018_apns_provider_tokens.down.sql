DROP TABLE apns_provider_tokens;
