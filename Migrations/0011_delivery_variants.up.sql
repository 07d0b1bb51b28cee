-- Which rendered payload a delivery sends. Recipients of one notification can see different texts: the voters of
-- a status change read "Feedback you voted on: {status}" while its submitter reads "{title} is now {status}".
-- The notification's content keeps one payload per variant (content->'payloads'->variant), and expansion records
-- each recipient's variant here, so the delivery engine never has to re-derive who was a voter.
-- A constant default makes this a catalog-only change: existing rows are not rewritten.

ALTER TABLE deliveries
    ADD COLUMN variant text NOT NULL DEFAULT 'default',
    ADD CONSTRAINT deliveries_variant_valid CHECK (variant IN ('default', 'voter'));
