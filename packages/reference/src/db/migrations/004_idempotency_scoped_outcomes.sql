-- Idempotency keys, exactly once (issue "Exactly-once money"):
-- * a key is written only together with its outcome, in the same transaction as the write it protects (no
--   "in flight" rows, no wall-clock lease): a crash before commit leaves nothing, so a retry runs once; a commit
--   leaves the outcome, so a retry replays it. A request still running holds a transaction-scoped advisory lock on
--   its key, which a retry cannot take while that transaction can still commit (409 ERR_IDEMPOTENCY_409).
-- * keys are scoped to the account the request acts for (merchant:<id>, partner:<id>, or ip:<address> for
--   anonymous calls), not to the credential, so they survive credential rotation and a partner retrying a
--   merchant's request replays it.
-- Stored keys of the old shape are dropped (keys live 24 h and 1.0 was never released with the old table).
DROP TABLE idempotency_keys;
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
