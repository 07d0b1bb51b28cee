-- Reverts 0045_trace_context.
ALTER TABLE deliveries DROP COLUMN IF EXISTS trace_context;
ALTER TABLE notifications DROP COLUMN IF EXISTS trace_context;
