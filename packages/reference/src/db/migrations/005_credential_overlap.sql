-- Credential rotation with an overlap window (issue 13, decisions D36 and D37).
-- * A rotated merchant client secret stays valid until `expires_at` (its validity end); NULL = the current set, valid
--   until rotated. `revoked_at` still ends a credential at once (immediate revocation).
-- * The callback encryption key is versioned: the current key stays in merchants.encryption_key_sealed (version
--   encryption_key_version); the key it replaced is kept, sealed with the same context, until
--   previous_encryption_key_expires_at, so sessions opened before a rotation are signed with the key they were opened
--   under (checkout_sessions.encryption_key_version).
ALTER TABLE credentials ADD COLUMN expires_at timestamptz;
CREATE INDEX credentials_merchant_overlap_idx ON credentials (merchant_id) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;

ALTER TABLE merchants ADD COLUMN encryption_key_version integer NOT NULL DEFAULT 1 CHECK (encryption_key_version >= 1);
ALTER TABLE merchants ADD COLUMN previous_encryption_key_sealed text;
ALTER TABLE merchants ADD COLUMN previous_encryption_key_expires_at timestamptz;
ALTER TABLE merchants ADD CONSTRAINT merchants_previous_key_has_expiry
  CHECK ((previous_encryption_key_sealed IS NULL) = (previous_encryption_key_expires_at IS NULL));

-- Sessions opened before this migration were opened under the only key their merchant had: version 1.
ALTER TABLE checkout_sessions ADD COLUMN encryption_key_version integer NOT NULL DEFAULT 1;
ALTER TABLE checkout_sessions ALTER COLUMN encryption_key_version DROP DEFAULT;
