-- Issue 19 (D99): a webhook delivery's public id is random like every other id (D13). `dlv_<n>` was the row's
-- bigserial, one platform-wide sequence: a merchant learned every tenant's delivery volume from two of its own ids.
-- The sequence stays as the internal key (attempts reference it, lists break ties on it); nothing shows it.
-- `dlv_` + 22 base64url characters: the 16 bytes of a version-4 UUID (122 random bits from pg_strong_random).
ALTER TABLE webhook_deliveries ADD COLUMN public_id text;
UPDATE webhook_deliveries
   SET public_id = 'dlv_' || translate(rtrim(encode(uuid_send(gen_random_uuid()), 'base64'), '='), '+/', '-_')
 WHERE public_id IS NULL;
ALTER TABLE webhook_deliveries
  ALTER COLUMN public_id SET DEFAULT ('dlv_' || translate(rtrim(encode(uuid_send(gen_random_uuid()), 'base64'), '='), '+/', '-_')),
  ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX webhook_deliveries_public_id_idx ON webhook_deliveries (public_id);
