-- Issue 33 (D341): the deliveries list pages by (created_at, public_id), so its cursor holds the delivery's own public,
-- random id and never the platform-wide bigserial (two cursors told a merchant every tenant's delivery volume).
-- The list's indexes end with the column the cursor carries, as every list's does (D108).
DROP INDEX webhook_deliveries_endpoint_idx;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, public_id DESC);
DROP INDEX webhook_deliveries_endpoint_status_idx;
CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (endpoint_id, status, created_at, public_id);
