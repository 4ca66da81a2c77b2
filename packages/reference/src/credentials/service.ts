import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/db.js';
import { DomainError } from '../core/errors.js';
import { newClientId, newClientSecret, newEncryptionKey } from '../core/ids.js';
import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Principal } from '../core/scope.js';

/** SHA-256 of a secret. Secrets are 256-bit random values, so a fast hash is enough (no password KDF). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

const DUMMY_HASH = hashSecret('paygate-dummy-secret');

export interface PartnerCredentialInput {
  clientId: string;
  clientSecret: string;
  partnerId?: string;
  partnerName?: string;
}

/**
 * Make sure the partner (default id `default`) and its credential from the environment exist and are active.
 * A changed secret replaces the stored hash. Safe to call from several processes at once.
 */
export async function ensurePartnerCredential(deps: ServiceDeps, input: PartnerCredentialInput): Promise<{ partnerId: string; clientId: string }> {
  const partnerId = input.partnerId ?? 'default';
  if (input.clientId.length === 0 || input.clientSecret.length < 16) {
    throw new Error('Partner credentials need a client id and a client secret of at least 16 characters');
  }
  const now = formatIso(deps.clock.now());
  await deps.db.transaction(async (tx) => {
    await tx.query(`INSERT INTO partners (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
      partnerId,
      input.partnerName ?? 'Default partner',
      now,
    ]);
    const { rows } = await tx.query<{ kind: string; partner_id: string }>(
      `INSERT INTO credentials (client_id, secret_hash, kind, partner_id, created_at)
       VALUES ($1, $2, 'partner', $3, $4)
       ON CONFLICT (client_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, revoked_at = NULL
       WHERE credentials.kind = 'partner' AND credentials.partner_id = EXCLUDED.partner_id
       RETURNING kind, partner_id`,
      [input.clientId, hashSecret(input.clientSecret), partnerId, now],
    );
    if (rows.length === 0) throw new Error(`Client id ${input.clientId} already belongs to another credential`);
  });
  return { partnerId, clientId: input.clientId };
}

interface CredentialRow {
  client_id: string;
  secret_hash: Uint8Array;
  kind: 'partner' | 'merchant';
  partner_id: string;
  merchant_id: string | null;
}

/**
 * Authenticate `X-Client-ID` / `X-Client-Secret`. Missing either => 401 ERR_AUTH_000 "Missing credentials";
 * unknown, revoked or wrong => 401 ERR_AUTH_000 "Invalid credentials". Hashes are compared with timingSafeEqual,
 * and an unknown client id costs the same comparison.
 */
export async function authenticate(db: Db, clientId: string | undefined, clientSecret: string | undefined): Promise<Principal> {
  if (!clientId || !clientSecret) throw new DomainError('ERR_AUTH_000', 'Missing credentials');
  const { rows } = await db.query<CredentialRow>(
    `SELECT client_id, secret_hash, kind, partner_id, merchant_id FROM credentials WHERE client_id = $1 AND revoked_at IS NULL`,
    [clientId],
  );
  const row = rows[0];
  const presented = hashSecret(clientSecret);
  const stored = row ? Buffer.from(row.secret_hash) : DUMMY_HASH;
  const match = stored.length === presented.length && timingSafeEqual(stored, presented);
  if (!row || !match) throw new DomainError('ERR_AUTH_000', 'Invalid credentials');
  if (row.kind === 'merchant' && row.merchant_id) {
    return { kind: 'merchant', clientId: row.client_id, partnerId: row.partner_id, merchantId: row.merchant_id };
  }
  return { kind: 'partner', clientId: row.client_id, partnerId: row.partner_id };
}

export interface IssuedCredentials {
  merchant_id: string;
  client_id: string;
  client_secret: string;
  encryption_key: string;
  created_at: string;
}

/**
 * Issue merchant credentials (client id, secret and callback encryption key), returned once. Any earlier set of the
 * merchant is revoked and its encryption key replaced (rotation). Partner-only; other partners' merchants => 404.
 */
export async function issueMerchantCredentials(
  deps: ServiceDeps,
  partnerId: string,
  merchantId: string,
  options: { live?: boolean } = {},
): Promise<IssuedCredentials> {
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.query('SELECT id FROM merchants WHERE id = $1 AND partner_id = $2 FOR UPDATE', [merchantId, partnerId]);
    if (rows.length === 0) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
    const now = formatIso(deps.clock.now());
    const clientId = newClientId(options.live ?? false);
    const clientSecret = newClientSecret();
    const encryptionKey = newEncryptionKey();
    await tx.query(`UPDATE credentials SET revoked_at = $2 WHERE merchant_id = $1 AND revoked_at IS NULL`, [merchantId, now]);
    await tx.query(
      `INSERT INTO credentials (client_id, secret_hash, kind, partner_id, merchant_id, is_test, created_at)
       VALUES ($1, $2, 'merchant', $3, $4, $5, $6)`,
      [clientId, hashSecret(clientSecret), partnerId, merchantId, !(options.live ?? false), now],
    );
    // Sealed under the master key (it must stay usable to sign callbacks); any legacy plaintext copy is cleared.
    await tx.query(`UPDATE merchants SET encryption_key_sealed = $2, updated_at = $3 WHERE id = $1`, [
      merchantId,
      deps.secrets.seal(encryptionKey, encryptionKeyContext(merchantId)),
      now,
    ]);
    return { merchant_id: merchantId, client_id: clientId, client_secret: clientSecret, encryption_key: encryptionKey, created_at: now };
  });
}

/** Sealing context of a merchant's callback encryption key (binds the sealed value to its row). */
export function encryptionKeyContext(merchantId: string): string {
  return `merchant:${merchantId}:encryption_key`;
}

/** The merchant's callback encryption key (signs return-URL callback hashes), opened from its sealed column. Never log it. */
export async function merchantEncryptionKey(db: Db, secrets: SecretBox, merchantId: string): Promise<string> {
  const { rows } = await db.query<{ encryption_key_sealed: string }>('SELECT encryption_key_sealed FROM merchants WHERE id = $1', [merchantId]);
  const row = rows[0];
  if (!row) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
  return secrets.open(row.encryption_key_sealed, encryptionKeyContext(merchantId));
}
