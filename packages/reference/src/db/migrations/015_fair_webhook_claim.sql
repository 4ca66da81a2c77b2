-- Issue 33 (D342): a webhook claim whose cost does not grow with any endpoint's backlog, and endpoint-level backoff.

-- Endpoint health: an endpoint whose last attempt failed is `failing` and is not claimed from before `retry_after`; then
-- it gets one delivery (a probe) per claim until an attempt succeeds. Its backlog is never scanned meanwhile.
ALTER TABLE webhook_endpoints
  ADD COLUMN failing_since timestamptz,
  ADD COLUMN retry_after timestamptz;

-- The claim walks the endpoints with pending or in-flight deliveries (a skip scan: one index descent per endpoint,
-- whatever its backlog) and takes each one's oldest due deliveries from here.
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status IN ('pending', 'delivering');
-- In-flight deliveries per endpoint (the cap that holds across processes) and expired leases to take back.
CREATE INDEX webhook_deliveries_endpoint_lease_idx ON webhook_deliveries (endpoint_id, lease_expires_at) WHERE status = 'delivering';
-- The global due index served the old claim only; every due read now starts from an endpoint.
DROP INDEX webhook_deliveries_due_idx;
