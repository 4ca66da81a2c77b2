-- Exactly-once settlement money (issue "Exactly-once money"):
-- * the exact forex rate of every settlement is kept as a fraction (num/den); forex_rate_cents stays for display;
-- * refunds still INITIATED at a run are reserved (held back) as `refund_reserve` lines; a reserve is used when its
--   refund is processed (the refund then counts as deducted by the settlement that held it) or released, once, by the
--   next run as a `reserve_release` line when the refund fails;
-- * a settlement may hold several lines of one payment (its capture and a reserve), so lines are keyed by position.
ALTER TABLE settlements ADD COLUMN forex_rate_num bigint NOT NULL DEFAULT 1 CHECK (forex_rate_num > 0);
ALTER TABLE settlements ADD COLUMN forex_rate_den bigint NOT NULL DEFAULT 1 CHECK (forex_rate_den > 0);
-- settlements made before this migration were paid with the rate rounded to cents: that is their rate
UPDATE settlements SET forex_rate_num = forex_rate_cents, forex_rate_den = 100;
ALTER TABLE settlements ALTER COLUMN forex_rate_num DROP DEFAULT;
ALTER TABLE settlements ALTER COLUMN forex_rate_den DROP DEFAULT;
ALTER TABLE settlements ADD COLUMN reserved_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE settlements ADD COLUMN released_minor bigint NOT NULL DEFAULT 0;
-- the totals always add up: what the merchant is owed = captures - fees - taxes - refunds - reserves + releases
ALTER TABLE settlements ADD CONSTRAINT settlements_net_adds_up
  CHECK (net_minor = gross_minor - fee_minor - tax_minor - refunds_minor - reserved_minor + released_minor);

ALTER TABLE settlement_transactions DROP CONSTRAINT settlement_transactions_pkey;
ALTER TABLE settlement_transactions ADD PRIMARY KEY (settlement_id, position);
ALTER TABLE settlement_transactions DROP CONSTRAINT settlement_transactions_type_check;
ALTER TABLE settlement_transactions ADD CONSTRAINT settlement_transactions_type_check
  CHECK (settlement_type IN ('capture', 'refund', 'refund_reserve', 'reserve_release'));

CREATE TABLE settlement_reserves (
  refund_id     text PRIMARY KEY REFERENCES refunds(id),     -- one reserve per refund, ever
  payment_id    text NOT NULL REFERENCES payments(id),
  merchant_id   text NOT NULL REFERENCES merchants(id),
  currency      char(3) NOT NULL,
  amount_minor  bigint NOT NULL CHECK (amount_minor > 0),
  held_by       text NOT NULL REFERENCES settlements(id),    -- the settlement whose refund_reserve line holds it
  status        text NOT NULL CHECK (status IN ('held', 'used', 'releasable', 'released')),
  released_by   text REFERENCES settlements(id),             -- the settlement whose reserve_release line paid it back
  created_at    timestamptz NOT NULL,
  resolved_at   timestamptz,
  CHECK ((status = 'released') = (released_by IS NOT NULL))
);
CREATE INDEX settlement_reserves_releasable_idx ON settlement_reserves (merchant_id) WHERE status = 'releasable';
