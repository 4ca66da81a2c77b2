-- Per-merchant sandbox clocks (issue 13, decision D38), in the spirit of Stripe's test clocks: a merchant's time is
-- the gateway's time plus its own offset, so moving one merchant's clock moves only its sessions, orders, refunds,
-- settlements and webhook retries. A merchant without a row runs on the gateway's time (offset 0); production never
-- writes a row (the sandbox API that moves clocks does not exist there).
CREATE TABLE merchant_clocks (
  merchant_id     text PRIMARY KEY REFERENCES merchants(id),
  offset_seconds  bigint NOT NULL CHECK (offset_seconds >= 0),
  updated_at      timestamptz NOT NULL
);

-- The former single sandbox clock moved every merchant: each merchant keeps the time it had.
INSERT INTO merchant_clocks (merchant_id, offset_seconds, updated_at)
  SELECT m.id, c.offset_seconds, c.updated_at FROM merchants m CROSS JOIN sandbox_clock c WHERE c.offset_seconds > 0;
DROP TABLE sandbox_clock;
