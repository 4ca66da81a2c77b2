-- Paygate reference gateway: initial schema. Same SQL on PGlite and PostgreSQL 15.
-- Money is integer minor units (bigint). Timestamps are timestamptz written from the service Clock.
-- Secrets the gateway must use again (merchant callback keys, webhook signing secrets, stored idempotent responses)
-- are sealed in the application (AES-256-GCM under PAYGATE_MASTER_KEY, core/secret-box.ts) with a context naming the
-- row; client secrets are only hashed. (The pre-release migrations 001-004 were squashed into this file.)

-- Id counters of the first builds (dropped by 003: ids are random now).
CREATE SEQUENCE merchant_id_seq;
CREATE SEQUENCE order_id_seq;
CREATE SEQUENCE payment_id_seq;
CREATE SEQUENCE refund_id_seq;
CREATE SEQUENCE settlement_id_seq;
CREATE SEQUENCE transaction_id_seq;

CREATE TABLE partners (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL
);

CREATE TABLE merchants (
  id                   text PRIMARY KEY,
  partner_id           text NOT NULL REFERENCES partners(id),
  company_details      jsonb NOT NULL,
  settlement_details   jsonb NOT NULL,
  settlement_currency  char(3) NOT NULL,
  kyc_status           text NOT NULL DEFAULT 'PENDING' CHECK (kyc_status IN ('PENDING', 'APPROVED', 'REJECTED')),
  kyc_reason           text,
  approved_at          timestamptz,
  invoice_file         text,
  -- HMAC key for return-URL callback hashes, sealed (context merchant:<id>:encryption_key): it must be usable to
  -- sign, so it cannot be hashed; never logged, never returned except once when credentials are issued/rotated.
  encryption_key_sealed text NOT NULL,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);
CREATE INDEX merchants_partner_idx ON merchants (partner_id, created_at);

CREATE TABLE credentials (
  client_id    text PRIMARY KEY,
  secret_hash  bytea NOT NULL,                 -- SHA-256 of the client secret
  kind         text NOT NULL CHECK (kind IN ('partner', 'merchant')),
  partner_id   text NOT NULL REFERENCES partners(id),
  merchant_id  text REFERENCES merchants(id),
  is_test      boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  CHECK ((kind = 'merchant') = (merchant_id IS NOT NULL))
);
CREATE INDEX credentials_merchant_idx ON credentials (merchant_id) WHERE revoked_at IS NULL;

CREATE TABLE documents (
  id             text PRIMARY KEY,             -- unguessable (doc_ + 32 base64url chars); also the file name on disk
  merchant_id    text NOT NULL REFERENCES merchants(id),
  order_id       text,
  owner_kind     text NOT NULL CHECK (owner_kind IN ('merchant', 'order')),
  document_type  text NOT NULL,
  identifier     text,
  storage_path   text NOT NULL,                -- relative to the documents directory under the data dir
  original_name  text,
  content_type   text NOT NULL,
  size_bytes     integer NOT NULL CHECK (size_bytes >= 0),
  sha256         text NOT NULL,
  created_at     timestamptz NOT NULL
);

CREATE TABLE orders (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants(id),
  reference_id     text NOT NULL,
  amount_minor     bigint NOT NULL CHECK (amount_minor > 0),
  currency         char(3) NOT NULL,
  status           text NOT NULL CHECK (status IN ('payment_pending', 'payment_successful', 'payment_failed', 'payment_cancelled')),
  status_message   text NOT NULL,
  collection_mode  text NOT NULL CHECK (collection_mode IN ('hosted_payment', 's2s')),
  mop_type         text,
  upi_flow_type    text CHECK (upi_flow_type IN ('intent', 'collection')),
  vpa              text,
  upi_app_name     text,
  intent_uri       text,
  buyer            jsonb NOT NULL,
  product          jsonb NOT NULL,
  invoice          jsonb,
  air_waybills     jsonb NOT NULL DEFAULT '[]'::jsonb,
  return_url       text,
  is_testing       boolean NOT NULL,
  expires_at       timestamptz NOT NULL,       -- unpaid orders move to payment_cancelled after this instant
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT orders_reference_unique UNIQUE (merchant_id, reference_id)
);
CREATE INDEX orders_pending_expiry_idx ON orders (expires_at) WHERE status = 'payment_pending';

ALTER TABLE documents ADD CONSTRAINT documents_order_fk FOREIGN KEY (order_id) REFERENCES orders(id);

CREATE TABLE checkout_sessions (
  id          text PRIMARY KEY,
  order_id    text NOT NULL UNIQUE REFERENCES orders(id),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL
);

CREATE TABLE settlements (
  id                       text PRIMARY KEY,
  merchant_id              text NOT NULL REFERENCES merchants(id),
  transaction_currency     char(3) NOT NULL,
  settlement_currency      char(3) NOT NULL,
  forex_rate_cents         integer NOT NULL,
  gross_minor              bigint NOT NULL,
  fee_minor                bigint NOT NULL,
  tax_minor                bigint NOT NULL,
  refunds_minor            bigint NOT NULL,
  net_minor                bigint NOT NULL,
  settlement_amount_cents  bigint NOT NULL,
  utr_number               text NOT NULL UNIQUE,
  completed_at             timestamptz NOT NULL,
  created_at               timestamptz NOT NULL
);
CREATE INDEX settlements_merchant_idx ON settlements (merchant_id, created_at);

CREATE TABLE payments (
  id                 text PRIMARY KEY,
  order_id           text NOT NULL REFERENCES orders(id),
  merchant_id        text NOT NULL REFERENCES merchants(id),
  status             text NOT NULL CHECK (status IN ('PENDING', 'CAPTURED', 'FAILED')),
  status_message     text NOT NULL,
  mop_type           text NOT NULL,
  collection_mode    text NOT NULL,
  amount_minor       bigint NOT NULL CHECK (amount_minor > 0),
  currency           char(3) NOT NULL,
  bank_ref_num       text NOT NULL,
  mop_detail         jsonb NOT NULL DEFAULT '{}'::jsonb,
  settlement_status  text NOT NULL CHECK (settlement_status IN ('pending', 'ready_for_settlement', 'settled', 'not_applicable')),
  settlement_id      text REFERENCES settlements(id),
  auto_complete_outcome text CHECK (auto_complete_outcome IN ('success', 'failure')),  -- sandbox s2s collection VPAs
  completed_at       timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX payments_order_idx ON payments (order_id);
CREATE INDEX payments_merchant_idx ON payments (merchant_id, created_at);
CREATE UNIQUE INDEX payments_one_capture_per_order ON payments (order_id) WHERE status = 'CAPTURED';
CREATE INDEX payments_unsettled_idx ON payments (merchant_id, currency) WHERE status = 'CAPTURED' AND settlement_id IS NULL;

CREATE TABLE refunds (
  id              text PRIMARY KEY,
  payment_id      text NOT NULL REFERENCES payments(id),
  merchant_id     text NOT NULL REFERENCES merchants(id),
  amount_minor    bigint NOT NULL CHECK (amount_minor > 0),
  currency        char(3) NOT NULL,
  status          text NOT NULL CHECK (status IN ('INITIATED', 'PROCESSED', 'FAILED')),
  message         text NOT NULL,
  transaction_id  text NOT NULL UNIQUE,
  bank_ref_num    text,
  refunded_at     timestamptz,
  settlement_id   text REFERENCES settlements(id),   -- the settlement that deducted this refund
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX refunds_payment_idx ON refunds (payment_id);
CREATE INDEX refunds_merchant_idx ON refunds (merchant_id, created_at);
CREATE INDEX refunds_due_idx ON refunds (created_at) WHERE status = 'INITIATED';

CREATE TABLE settlement_transactions (
  settlement_id         text NOT NULL REFERENCES settlements(id),
  payment_id            text NOT NULL REFERENCES payments(id),
  settlement_type       text NOT NULL CONSTRAINT settlement_transactions_type_check CHECK (settlement_type IN ('capture', 'refund')),
  transaction_amount    bigint NOT NULL,
  fee_minor             bigint NOT NULL,
  tax_minor             bigint NOT NULL,
  refunds_minor         bigint NOT NULL,
  net_minor             bigint NOT NULL,
  mop_type              text NOT NULL,
  transaction_currency  char(3) NOT NULL,
  forex_rate_cents      integer NOT NULL,
  position              integer NOT NULL,
  PRIMARY KEY (settlement_id, payment_id)
);
-- A refund processed after its payment was settled is deducted in a later settlement as a `refund` line of that
-- payment, so a payment may appear in more than one settlement: once as `capture`, then in `refund` lines.
CREATE UNIQUE INDEX settlement_transactions_capture_once ON settlement_transactions (payment_id) WHERE settlement_type = 'capture';

CREATE TABLE webhook_endpoints (
  id           text PRIMARY KEY,
  owner_kind   text NOT NULL CHECK (owner_kind IN ('partner', 'merchant')),
  partner_id   text NOT NULL REFERENCES partners(id),
  merchant_id  text REFERENCES merchants(id),
  url          text NOT NULL,
  events       jsonb NOT NULL,                 -- array of event type names
  description  text,
  secret_sealed text NOT NULL,                 -- whsec_..., sealed (context webhook_endpoint:<id>:secret); signs deliveries
  created_at   timestamptz NOT NULL,
  deleted_at   timestamptz,
  CHECK ((owner_kind = 'merchant') = (merchant_id IS NOT NULL))
);
CREATE INDEX webhook_endpoints_partner_idx ON webhook_endpoints (partner_id) WHERE deleted_at IS NULL;

-- Transactional outbox: written in the same transaction as the state change it announces.
CREATE TABLE events (
  sequence_number  uuid PRIMARY KEY,
  type             text NOT NULL,
  partner_id       text NOT NULL,
  merchant_id      text NOT NULL,
  payload          json NOT NULL,              -- the full webhook envelope (json keeps key order for the body)
  created_at       timestamptz NOT NULL,
  fanned_out_at    timestamptz
);
CREATE INDEX events_unfanned_idx ON events (created_at) WHERE fanned_out_at IS NULL;

CREATE TABLE webhook_deliveries (
  id                bigserial PRIMARY KEY,
  event_id          uuid NOT NULL REFERENCES events(sequence_number),
  endpoint_id       text NOT NULL REFERENCES webhook_endpoints(id),
  status            text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempt           integer NOT NULL DEFAULT 0,   -- attempts made so far
  next_attempt_at   timestamptz NOT NULL,
  lease_expires_at  timestamptz,                  -- a crashed deliverer's claim becomes claimable again after this
  last_status_code  integer,
  last_error        text,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  CONSTRAINT webhook_deliveries_event_endpoint UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'delivering');

CREATE TABLE webhook_delivery_attempts (
  id            bigserial PRIMARY KEY,
  delivery_id   bigint NOT NULL REFERENCES webhook_deliveries(id),
  attempt       integer NOT NULL,
  started_at    timestamptz NOT NULL,
  duration_ms   integer NOT NULL,
  status_code   integer,
  error         text,
  UNIQUE (delivery_id, attempt)
);

-- Idempotency keys, exactly once: a key is written only together with its outcome, in the same transaction as the
-- write it protects (no "in flight" rows, no wall-clock lease). A request still running holds a transaction-scoped
-- advisory lock on its key. Keys are scoped to the account the request acts for (merchant:<id>, partner:<id>, or
-- ip:<address> for anonymous calls), so they survive credential rotation.
CREATE TABLE idempotency_keys (
  scope                  text NOT NULL,
  key                    text NOT NULL,
  fingerprint            text NOT NULL,          -- SHA-256 of method, path and canonical body
  response_status        integer NOT NULL,
  response_sealed        text NOT NULL,          -- the exact body text sent, sealed with context idempotency:<scope>:<key>
  response_content_type  text,                   -- null when the response had no body
  response_headers       jsonb NOT NULL,
  created_at             timestamptz NOT NULL,
  expires_at             timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

CREATE TABLE rate_limit_windows (
  credential_id  text NOT NULL,
  window_start   timestamptz NOT NULL,
  count          integer NOT NULL,
  PRIMARY KEY (credential_id, window_start)
);

CREATE TABLE sandbox_clock (
  id              integer PRIMARY KEY CHECK (id = 1),
  offset_seconds  bigint NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO sandbox_clock (id, offset_seconds) VALUES (1, 0);

-- One sealed canary per database: start-up opens it, so a wrong or lost master key fails at once with a clear
-- message instead of at the first callback or webhook delivery.
CREATE TABLE master_key_check (
  id          integer PRIMARY KEY CHECK (id = 1),
  sealed      text NOT NULL,
  created_at  timestamptz NOT NULL
);
