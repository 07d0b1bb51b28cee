-- Reverts 0039_time_ordered_ids: random ids again; the time-ordered ones already given stay.
ALTER TABLE deliveries ALTER COLUMN id SET DEFAULT gen_random_uuid();
DROP FUNCTION herald_uuid_v7();
