-- Issue 14 (D78, D79): deliveries a merchant can see and replay, endpoints disabled by 410 Gone, and events only for
-- endpoints that existed when the event was created.

-- A gap-free order of creation for events, independent of the (per-merchant, movable) sandbox clocks: an endpoint
-- receives the events whose position is above the highest position at its registration.
ALTER TABLE events ADD COLUMN position bigserial;
CREATE UNIQUE INDEX events_position_idx ON events (position);

ALTER TABLE webhook_endpoints
  ADD COLUMN events_after_position bigint NOT NULL DEFAULT 0,
  ADD COLUMN disabled_at timestamptz,
  ADD COLUMN disabled_reason text;

-- An endpoint registered before this migration keeps receiving every event it subscribed to (position 0).
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
