import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/db.js';
import { DomainError, validationError } from '../core/errors.js';
import { newClientId, newClientSecret, newEncryptionKey } from '../core/ids.js';
import { addSeconds, formatIso, parseIso, systemClock, type Micros } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Principal } from '../core/scope.js';
import { insertInto, sql, VALUE } from '../db/insert.js';

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

/** A partner: the partners row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_PARTNER = insertInto('partners', { id: VALUE, name: VALUE, created_at: VALUE }, { tail: 'ON CONFLICT (id) DO NOTHING' });

/** A credential: the credentials row's one column list (D460, "An INSERT is built from its table's column list"). */
const CREDENTIAL_COLUMNS = {
  client_id: VALUE,
  secret_hash: VALUE,
  kind: VALUE,
  partner_id: VALUE,
  merchant_id: VALUE,
  is_test: VALUE,
  created_at: VALUE,
} as const;

/** A merchant's credential set. */
const INSERT_MERCHANT_CREDENTIAL = insertInto('credentials', CREDENTIAL_COLUMNS, { override: { kind: sql("'merchant'") } });

/** A partner's credential, its secret replaced when the client id is already the partner's own. */
const UPSERT_PARTNER_CREDENTIAL = insertInto('credentials', CREDENTIAL_COLUMNS, {
  override: { kind: sql("'partner'"), merchant_id: sql('DEFAULT'), is_test: sql('DEFAULT') },
  tail: `ON CONFLICT (client_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, revoked_at = NULL
       WHERE credentials.kind = 'partner' AND credentials.partner_id = EXCLUDED.partner_id
       RETURNING kind, partner_id`,
});

/**
 * Make sure the partner (default id `default`) and its credential from the environment exist and are active.
 * A changed secret replaces the stored hash. Safe to call from several processes at once.
 */
export async function ensurePartnerCredential(
  deps: ServiceDeps,
  input: PartnerCredentialInput,
): Promise<{ partnerId: string; clientId: string }> {
  const partnerId = input.partnerId ?? 'default';
  if (input.clientId.length === 0 || input.clientSecret.length < 16) {
    throw new Error('Partner credentials need a client id and a client secret of at least 16 characters');
  }
  const secretHash = hashSecret(input.clientSecret);
  // D172: every start but the first (or one with a changed secret) finds the credential stored as given: one read and
  // no write, so a start neither commits nor tells every process to drop its cached credentials (008's NOTIFY)
  const { rows: stored } = await deps.db.query<{ kind: string; partner_id: string; secret_hash: Uint8Array; revoked: boolean }>(
    'SELECT kind, partner_id, secret_hash, revoked_at IS NOT NULL AS revoked FROM credentials WHERE client_id = $1',
    [input.clientId],
  );
  const current = stored[0];
  if (
    current !== undefined &&
    current.kind === 'partner' &&
    current.partner_id === partnerId &&
    !current.revoked &&
    current.secret_hash.length === secretHash.length &&
    timingSafeEqual(current.secret_hash, secretHash)
  ) {
    return { partnerId, clientId: input.clientId };
  }
  const now = formatIso(deps.clock.now());
  await deps.db.transaction(async (tx) => {
    await tx.query(
      INSERT_PARTNER.text,
      INSERT_PARTNER.values({ id: partnerId, name: input.partnerName ?? 'Default partner', created_at: now }),
    );
    const { rows } = await tx.query<{ kind: string; partner_id: string }>(
      UPSERT_PARTNER_CREDENTIAL.text,
      UPSERT_PARTNER_CREDENTIAL.values({ client_id: input.clientId, secret_hash: secretHash, partner_id: partnerId, created_at: now }),
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
  expires_at: string | null;
}

/** A verified credential: who is calling, and until when this secret stays valid. */
export interface VerifiedCredential {
  principal: Principal;
  /**
   * The end of the secret's validity (microseconds, gateway clock): the end of a rotated secret's overlap window, or
   * null for a current secret (valid until it is rotated or revoked). A cache of this answer must not outlive it, and
   * must drop it when the credential row changes (rotation and revocation update `credentials`).
   */
  validUntil: Micros | null;
}

/**
 * THE credential check (one function; anything caching answers wraps this one). Missing either header => 401
 * ERR_AUTH_000 "Missing credentials"; unknown, revoked, expired (a rotated secret after its overlap window) or wrong
 * => 401 ERR_AUTH_000 "Invalid credentials". Hashes are compared with timingSafeEqual, and an unknown client id costs
 * the same comparison. `now` is the gateway's clock (credentials never follow a merchant's sandbox clock).
 */
export async function verifyCredential(
  db: Db,
  clientId: string | undefined,
  clientSecret: string | undefined,
  now: Micros = systemClock.now(),
): Promise<VerifiedCredential> {
  if (!clientId || !clientSecret) throw new DomainError('ERR_AUTH_000', 'Missing credentials');
  const { rows } = await db.query<CredentialRow>(
    `SELECT client_id, secret_hash, kind, partner_id, merchant_id, expires_at FROM credentials WHERE client_id = $1 AND revoked_at IS NULL`,
    [clientId],
  );
  const row = rows[0];
  const presented = hashSecret(clientSecret);
  const stored = row ? Buffer.from(row.secret_hash) : DUMMY_HASH;
  const match = stored.length === presented.length && timingSafeEqual(stored, presented);
  const validUntil = row?.expires_at ? parseIso(row.expires_at) : null;
  if (!row || !match || (validUntil !== null && validUntil <= now)) throw new DomainError('ERR_AUTH_000', 'Invalid credentials');
  if (row.kind === 'merchant' && row.merchant_id) {
    return { principal: { kind: 'merchant', clientId: row.client_id, partnerId: row.partner_id, merchantId: row.merchant_id }, validUntil };
  }
  return { principal: { kind: 'partner', clientId: row.client_id, partnerId: row.partner_id }, validUntil };
}

/** {@link verifyCredential}, for callers that need only the principal. */
export async function authenticate(
  db: Db,
  clientId: string | undefined,
  clientSecret: string | undefined,
  now: Micros = systemClock.now(),
): Promise<Principal> {
  return (await verifyCredential(db, clientId, clientSecret, now)).principal;
}

/** Default overlap of a rotated secret and callback key (seconds): 24 hours. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
/** Longest overlap a rotation may ask for (seconds): 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 604_800;

export interface IssuedCredentials {
  merchant_id: string;
  client_id: string;
  client_secret: string;
  encryption_key: string;
  created_at: string;
  /** When the set this one replaced stops working (null: there was none, or it was revoked at once). */
  previous_expires_at: string | null;
}

/**
 * Issue merchant credentials (client id, secret and callback encryption key), returned once. Rotation with an overlap
 * window (D36 credential rotation with an overlap window): the set current until now keeps working for `overlapSeconds` (default 24 h; 0 revokes it at once),
 * its encryption key too (sessions opened before keep being signed with it); a set still in an earlier overlap window
 * is revoked at once, so at most two sets are ever valid. The first issue replaces the key the merchant was created
 * with (D11 every merchant gets a callback encryption key), which nobody has seen, at once. Partner-only; other partners' merchants => 404.
 */
export async function issueMerchantCredentials(
  deps: ServiceDeps,
  partnerId: string,
  merchantId: string,
  options: { live?: boolean; overlapSeconds?: number } = {},
): Promise<IssuedCredentials> {
  const overlap = options.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
  if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap > MAX_ROTATION_OVERLAP_SECONDS) {
    throw validationError('overlap_seconds', `must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`);
  }
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ encryption_key_version: number }>(
      'SELECT encryption_key_version FROM merchants WHERE id = $1 AND partner_id = $2 FOR UPDATE',
      [merchantId, partnerId],
    );
    const merchant = rows[0];
    if (!merchant) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
    const at = deps.clock.now();
    const now = formatIso(at);
    const clientId = newClientId(options.live ?? false);
    const clientSecret = newClientSecret();
    const encryptionKey = newEncryptionKey();
    // a set still in an overlap window ends now: only the set current until now overlaps with the new one
    await tx.query(`UPDATE credentials SET revoked_at = $2 WHERE merchant_id = $1 AND revoked_at IS NULL AND expires_at IS NOT NULL`, [
      merchantId,
      now,
    ]);
    const expiresAt = overlap > 0 ? formatIso(addSeconds(at, overlap)) : null;
    const { rows: current } = await tx.query<{ client_id: string }>(
      expiresAt
        ? `UPDATE credentials SET expires_at = $2 WHERE merchant_id = $1 AND revoked_at IS NULL AND expires_at IS NULL RETURNING client_id`
        : `UPDATE credentials SET revoked_at = $2 WHERE merchant_id = $1 AND revoked_at IS NULL AND expires_at IS NULL RETURNING client_id`,
      [merchantId, expiresAt ?? now],
    );
    // the key overlaps only when a credential set (which showed it) overlaps: the creation key was never shown
    const keepPrevious = expiresAt !== null && current.length > 0;
    await tx.query(
      INSERT_MERCHANT_CREDENTIAL.text,
      INSERT_MERCHANT_CREDENTIAL.values({
        client_id: clientId,
        secret_hash: hashSecret(clientSecret),
        partner_id: partnerId,
        merchant_id: merchantId,
        is_test: !(options.live ?? false),
        created_at: now,
      }),
    );
    // Sealed under the master key (it must stay usable to sign callbacks). The key it replaces moves to the previous
    // slot (same sealing context) for the overlap window, or is dropped.
    await tx.query(
      `UPDATE merchants SET previous_encryption_key_sealed = CASE WHEN $4 THEN encryption_key_sealed END,
              previous_encryption_key_expires_at = CASE WHEN $4 THEN $5::timestamptz END,
              encryption_key_sealed = $2, encryption_key_version = encryption_key_version + 1, updated_at = $3
       WHERE id = $1`,
      [merchantId, deps.secrets.seal(encryptionKey, encryptionKeyContext(merchantId)), now, keepPrevious, expiresAt],
    );
    return {
      merchant_id: merchantId,
      client_id: clientId,
      client_secret: clientSecret,
      encryption_key: encryptionKey,
      created_at: now,
      previous_expires_at: keepPrevious ? expiresAt : null,
    };
  });
}

/**
 * End the overlap window now (D36 credential rotation with an overlap window): the merchant's previous client secret and callback encryption key stop working
 * at once (after a leak). The current set is untouched. Returns the client ids revoked (none when no set overlaps).
 * Partner-only; other partners' merchants => 404.
 */
export async function revokePreviousCredentials(
  deps: ServiceDeps,
  partnerId: string,
  merchantId: string,
): Promise<{ merchant_id: string; revoked_client_ids: string[] }> {
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.query('SELECT id FROM merchants WHERE id = $1 AND partner_id = $2 FOR UPDATE', [merchantId, partnerId]);
    if (rows.length === 0) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
    const now = formatIso(deps.clock.now());
    const { rows: revoked } = await tx.query<{ client_id: string }>(
      `UPDATE credentials SET revoked_at = $2 WHERE merchant_id = $1 AND revoked_at IS NULL AND expires_at IS NOT NULL RETURNING client_id`,
      [merchantId, now],
    );
    await tx.query(
      `UPDATE merchants SET previous_encryption_key_sealed = NULL, previous_encryption_key_expires_at = NULL, updated_at = $2
       WHERE id = $1 AND previous_encryption_key_sealed IS NOT NULL`,
      [merchantId, now],
    );
    return { merchant_id: merchantId, revoked_client_ids: revoked.map((r) => r.client_id).sort() };
  });
}

/** Sealing context of a merchant's callback encryption key (binds the sealed value to its row). */
export function encryptionKeyContext(merchantId: string): string {
  return `merchant:${merchantId}:encryption_key`;
}

/** The merchant's current callback encryption key (signs return-URL callback hashes), opened from its sealed column. Never log it. */
export async function merchantEncryptionKey(db: Db, secrets: SecretBox, merchantId: string): Promise<string> {
  const { rows } = await db.query<{ encryption_key_sealed: string }>('SELECT encryption_key_sealed FROM merchants WHERE id = $1', [
    merchantId,
  ]);
  const row = rows[0];
  if (!row) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
  return secrets.open(row.encryption_key_sealed, encryptionKeyContext(merchantId));
}

/**
 * The key that signs a session's callback (D37 callbacks signed with the session's key version): the key that was current when the session was created
 * (`keyVersion`), while it is valid: the current key, or the previous one inside its overlap window. A session opened
 * under a key that has since been revoked or has expired is signed with the current key (a revoked key proves
 * nothing, and the merchant holds the current one). Never log it.
 */
export async function callbackKeyForSession(
  db: Db,
  deps: Pick<ServiceDeps, 'clock' | 'secrets'>,
  merchantId: string,
  keyVersion: number,
): Promise<string> {
  const { rows } = await db.query<{
    encryption_key_sealed: string;
    encryption_key_version: number;
    previous_encryption_key_sealed: string | null;
    previous_encryption_key_expires_at: string | null;
  }>(
    `SELECT encryption_key_sealed, encryption_key_version, previous_encryption_key_sealed, previous_encryption_key_expires_at
     FROM merchants WHERE id = $1`,
    [merchantId],
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
  const context = encryptionKeyContext(merchantId);
  const previousValid =
    keyVersion === row.encryption_key_version - 1 &&
    row.previous_encryption_key_sealed !== null &&
    row.previous_encryption_key_expires_at !== null &&
    parseIso(row.previous_encryption_key_expires_at) > deps.clock.now();
  return deps.secrets.open(previousValid ? (row.previous_encryption_key_sealed as string) : row.encryption_key_sealed, context);
}
