-- Encryption at rest for the secrets the gateway must use again (they cannot be hashed like client secrets).
-- Values are sealed in the application (AES-256-GCM under PAYGATE_MASTER_KEY, domain/secret-box.ts) with a context
-- naming the row, so SQL cannot convert the old plaintext columns: they become nullable, and the runtime seals and
-- clears any plaintext row it finds at start-up (and whenever it reads one later).

-- merchants.encryption_key (ek_..., signs the return-URL callback hash); context merchant:<id>:encryption_key
ALTER TABLE merchants ALTER COLUMN encryption_key DROP NOT NULL;
ALTER TABLE merchants ADD COLUMN encryption_key_sealed text;

-- webhook_endpoints.secret (whsec_..., signs deliveries); context webhook_endpoint:<id>:secret
ALTER TABLE webhook_endpoints ALTER COLUMN secret DROP NOT NULL;
ALTER TABLE webhook_endpoints ADD COLUMN secret_sealed text;

-- idempotency_keys: the exact response body text that was sent (replays are byte-identical), sealed with context
-- idempotency:<credential id>:<key>, since replays of credential issuing / webhook endpoint creation carry secrets.
-- Content type and response headers (e.g. Location) are not secret and stay readable.
ALTER TABLE idempotency_keys ADD COLUMN response_sealed text;
ALTER TABLE idempotency_keys ADD COLUMN response_content_type text;
ALTER TABLE idempotency_keys ADD COLUMN response_headers jsonb;

-- One sealed canary per database: start-up opens it, so a wrong or lost master key fails at once with a clear
-- message instead of at the first callback or webhook delivery.
CREATE TABLE master_key_check (
  id          integer PRIMARY KEY CHECK (id = 1),
  sealed      text NOT NULL,
  created_at  timestamptz NOT NULL
);
