-- The trace a notification belongs to, as the tracer's propagation fields ({"traceparent": "00-…"} with
-- OpenTelemetry): written when the request is accepted, copied to each delivery at expansion, read by the claim, so
-- the spans of every push join the request's trace in whichever process sends it. NULL when tracing is off.
-- Nullable columns without a default: adding them rewrites nothing and holds the tables' locks for an instant.
ALTER TABLE notifications ADD COLUMN trace_context jsonb;
ALTER TABLE deliveries ADD COLUMN trace_context jsonb;
