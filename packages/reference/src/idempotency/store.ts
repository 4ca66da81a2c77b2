import { createHash } from 'node:crypto';
import { apiDocument } from '@paygate/contract';
import type { Db } from '../db/db.js';
import { DomainError, VALIDATION_MESSAGE } from '../core/errors.js';
import type { SecretBox } from '../core/secret-box.js';
import { addSeconds, formatIso, type Clock } from '../core/clock.js';
import { resolveScope, type Principal } from '../core/scope.js';
import { isObj as isObject } from '@paygate/contract/json';
import { insertInto, VALUE } from '../db/insert.js';

/** Keys are kept 24 h per account (the idempotency scope). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/**
 * The `Idempotency-Key` header's schema as the contract declares it (`#/components/parameters/*` named
 * `Idempotency-Key`): its pattern and length bounds are read from there, never copied (the spec forbids a space).
 */
function contractKeyRule(): { pattern: RegExp; minLength: number; maxLength: number } {
  const parameters =
    isObject(apiDocument.components) && isObject(apiDocument.components.parameters) ? Object.values(apiDocument.components.parameters) : [];
  const parameter = parameters.find(
    (p) => isObject(p) && p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() === 'idempotency-key',
  );
  const schema = isObject(parameter) && isObject(parameter.schema) ? parameter.schema : {};
  return {
    pattern: new RegExp(typeof schema.pattern === 'string' ? schema.pattern : '^[\\s\\S]*$', 'u'),
    minLength: typeof schema.minLength === 'number' ? schema.minLength : 1,
    maxLength: typeof schema.maxLength === 'number' ? schema.maxLength : 255,
  };
}

const KEY_RULE = contractKeyRule();

/** Idempotency-Key header: what the contract allows (1..255 visible ASCII characters, no space). */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= KEY_RULE.minLength && key.length <= KEY_RULE.maxLength && KEY_RULE.pattern.test(key);
}

/** SHA-256 over method, path and raw body (hex), separated so the parts cannot run into each other. */
export function requestFingerprint(method: string, path: string, body: string | Uint8Array): string {
  const h = createHash('sha256');
  h.update(method.toUpperCase(), 'utf8');
  h.update('\n', 'utf8');
  h.update(path, 'utf8');
  h.update('\n', 'utf8');
  if (typeof body === 'string') h.update(body, 'utf8');
  else h.update(body);
  return h.digest('hex');
}

/** A response exactly as it was sent, so a replay can send the same bytes. */
export interface StoredResponse {
  status: number;
  /** Content-Type media type it was sent with (e.g. `application/json`); null when it had no body. */
  contentType: string | null;
  /** The exact body text that was sent ('' when none). */
  body: string;
  /** Response headers the handler chose (e.g. Location); not secret. */
  headers: Record<string, string>;
}

export type IdempotencyClaim = { kind: 'proceed' } | ({ kind: 'replay' } & StoredResponse);

/** What the idempotency store needs besides the request's transaction: the (sandbox) clock and the secret box. */
export interface IdempotencyDeps {
  clock: Clock;
  secrets: SecretBox;
}

/**
 * The account a key belongs to: the merchant the request acts for (merchant credentials, or partner credentials
 * naming one of their merchants in `X-Merchant-ID`), else the partner, else the caller's address (anonymous calls).
 * Keys therefore survive credential rotation, and a partner retrying its merchant's request replays it.
 * `X-Merchant-ID` of a partner is checked against the partner's merchants first (404 ERR_MERCHANT_404 otherwise),
 * so nobody reaches another account's stored responses.
 */
export async function idempotencyScope(
  db: Db,
  principal: Principal | undefined,
  xMerchantId: string | undefined,
  address: string,
): Promise<string> {
  if (principal === undefined) return `ip:${address}`;
  if (principal.kind === 'merchant') return `merchant:${principal.merchantId}`;
  if (xMerchantId === undefined || xMerchantId === '') return `partner:${principal.partnerId}`;
  const scope = await resolveScope(db, principal, xMerchantId);
  return scope.merchantId === undefined ? `partner:${principal.partnerId}` : `merchant:${scope.merchantId}`;
}

/**
 * Sealing context of a stored response. Replays of credential issuing and webhook endpoint creation carry secrets
 * shown once, so every stored body is sealed, bound to its scope and key.
 */
export function idempotencyContext(scope: string, key: string): string {
  return `idempotency:${scope}:${key}`;
}

/**
 * 64-bit advisory lock id of a key: the first 8 bytes of SHA-256 over the length-prefixed scope and the key, as a
 * signed decimal for `::bigint`. Two keys share an id with probability 2^-64; if they ever did, the later one would
 * get a spurious 409 while the other runs, never a wrong replay (replays match scope, key and fingerprint).
 */
export function idempotencyLockId(scope: string, key: string): string {
  const digest = createHash('sha256').update(`${scope.length}:${scope}`, 'utf8').update(key, 'utf8').digest();
  return digest.readBigInt64BE(0).toString();
}

interface KeyRow {
  fingerprint: string;
  response_status: number;
  response_sealed: string;
  response_content_type: string | null;
  response_headers: Record<string, string>;
}

/**
 * Claim `key` for the request whose transaction `tx` is. Call it first in that transaction; the rest of the request
 * (its writes, then `recordIdempotentOutcome`) must run in the same transaction.
 *
 * - The key is locked with a transaction-scoped advisory lock: held until this transaction commits or rolls back,
 *   whatever the wall clock says, so a retry can never take over an execution that can still commit. A retry
 *   while it is held: 409 ERR_IDEMPOTENCY_409 (no waiting).
 * - A stored outcome with the same fingerprint: `replay` (send it with `Idempotent-Replayed: true`); with another
 *   fingerprint: 422 ERR_IDEMPOTENCY_422. No outcome (new key, expired key, or a first attempt that crashed or
 *   failed before commit, which left nothing): `proceed`.
 */
export async function claimIdempotencyKey(
  tx: Db,
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  fingerprint: string,
): Promise<IdempotencyClaim> {
  if (!isValidIdempotencyKey(key)) {
    throw new DomainError('ERR_VALIDATION_400', VALIDATION_MESSAGE, {
      'idempotency-key': 'must be 1 to 255 visible ASCII characters (no space)',
    });
  }
  const { rows: lock } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [
    idempotencyLockId(scope, key),
  ]);
  if (lock[0]?.locked !== true) {
    throw new DomainError('ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is still being processed; retry later');
  }
  await tx.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at <= $3', [
    scope,
    key,
    formatIso(deps.clock.now()),
  ]);
  const { rows } = await tx.query<KeyRow>(
    `SELECT fingerprint, response_status, response_sealed, response_content_type, response_headers
     FROM idempotency_keys WHERE scope = $1 AND key = $2`,
    [scope, key],
  );
  const row = rows[0];
  if (!row) return { kind: 'proceed' };
  if (row.fingerprint !== fingerprint) {
    throw new DomainError('ERR_IDEMPOTENCY_422', 'This Idempotency-Key was used with a different request', {
      'idempotency-key': 'was already used with another method, path or body',
    });
  }
  return {
    kind: 'replay',
    status: row.response_status,
    contentType: row.response_content_type,
    body: deps.secrets.open(row.response_sealed, idempotencyContext(scope, key)),
    headers: row.response_headers,
  };
}

/** A request's stored outcome: the idempotency_keys row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_IDEMPOTENT_OUTCOME = insertInto('idempotency_keys', {
  scope: VALUE,
  key: VALUE,
  fingerprint: VALUE,
  response_status: VALUE,
  response_sealed: VALUE,
  response_content_type: VALUE,
  response_headers: VALUE,
  created_at: VALUE,
  expires_at: VALUE,
});

/**
 * Record the outcome of a claimed key, in the same transaction as the request's writes: the exact body text sent,
 * sealed under the master key, with its content type and headers. Only final answers are recorded (2xx and 4xx
 * other than 429); a 5xx rolls the whole transaction back instead, so a retry runs again.
 */
export async function recordIdempotentOutcome(
  tx: Db,
  deps: IdempotencyDeps,
  claim: { scope: string; key: string; fingerprint: string },
  response: StoredResponse,
): Promise<void> {
  const at = deps.clock.now();
  await tx.query(
    INSERT_IDEMPOTENT_OUTCOME.text,
    INSERT_IDEMPOTENT_OUTCOME.values({
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      response_status: response.status,
      response_sealed: deps.secrets.seal(response.body, idempotencyContext(claim.scope, claim.key)),
      response_content_type: response.contentType,
      response_headers: JSON.stringify(response.headers),
      created_at: formatIso(at),
      expires_at: formatIso(addSeconds(at, IDEMPOTENCY_TTL_SECONDS)),
    }),
  );
}

/** Housekeeping for the worker. */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<number> {
  const { rows } = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key', [formatIso(clock.now())]);
  return rows.length;
}
