import { createHash } from 'node:crypto';
import type { Db } from '../db/db.js';
import { DomainError } from '../domain/errors.js';
import type { SecretBox } from '../domain/secret-box.js';
import { addSeconds, formatIso, parseIso, type Clock } from '../domain/time.js';

/** Keys are kept 24 h per credential. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** An in-flight claim older than this is treated as abandoned (its process died) and may be taken over. */
export const IN_FLIGHT_TIMEOUT_SECONDS = 60;

/** Idempotency-Key header: 1..255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key);
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

export type IdempotencyBegin = { kind: 'proceed' } | ({ kind: 'replay' } & StoredResponse);

/** What the idempotency store needs: the database, the (sandbox) clock and the secret box for stored responses. */
export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

/**
 * Sealing context of a stored response. Replays of credential issuing and webhook endpoint creation carry secrets
 * shown once, so every stored body is sealed, bound to its credential and key.
 */
export function idempotencyContext(credentialId: string, key: string): string {
  return `idempotency:${credentialId}:${key}`;
}

interface KeyRow {
  fingerprint: string;
  status: 'in_flight' | 'done';
  response_status: number | null;
  response_sealed: string | null;
  response_content_type: string | null;
  response_headers: Record<string, string> | null;
  /** Legacy (before migration 002): plaintext jsonb body; sealed and cleared at start-up. */
  response_body: unknown;
  locked_at: string;
}

function storedResponse(secrets: SecretBox, credentialId: string, key: string, row: KeyRow & { response_status: number }): StoredResponse {
  if (row.response_sealed !== null) {
    return {
      status: row.response_status,
      contentType: row.response_content_type,
      body: secrets.open(row.response_sealed, idempotencyContext(credentialId, key)),
      headers: row.response_headers ?? {},
    };
  }
  // a legacy row (its original key order is lost with jsonb)
  return { status: row.response_status, contentType: 'application/json', body: JSON.stringify(row.response_body ?? null), headers: {} };
}

/**
 * Claim `key` for this request. New key => `proceed` (caller must later call complete or release). Same key:
 * other fingerprint => 422 ERR_IDEMPOTENCY_422; still in flight => 409 ERR_IDEMPOTENCY_409; done => `replay` with
 * the stored status and body (send header `Idempotent-Replayed: true`). Expired keys are forgotten.
 */
export async function beginIdempotent(deps: IdempotencyDeps, credentialId: string, key: string, fingerprint: string): Promise<IdempotencyBegin> {
  const { db, clock, secrets } = deps;
  if (!isValidIdempotencyKey(key)) {
    throw new DomainError('ERR_VALIDATION_400', 'Request validation failed', { 'Idempotency-Key': 'must be 1 to 255 printable ASCII characters' });
  }
  return db.transaction(async (tx) => {
    const at = clock.now();
    const now = formatIso(at);
    await tx.query('DELETE FROM idempotency_keys WHERE credential_id = $1 AND key = $2 AND expires_at <= $3', [credentialId, key, now]);
    const inserted = await tx.query(
      `INSERT INTO idempotency_keys (credential_id, key, fingerprint, status, locked_at, created_at, expires_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $4, $5) ON CONFLICT (credential_id, key) DO NOTHING RETURNING key`,
      [credentialId, key, fingerprint, now, formatIso(addSeconds(at, IDEMPOTENCY_TTL_SECONDS))],
    );
    if (inserted.rows.length > 0) return { kind: 'proceed' } as const;
    const { rows } = await tx.query<KeyRow>(
      `SELECT fingerprint, status, response_status, response_sealed, response_content_type, response_headers, response_body, locked_at
       FROM idempotency_keys
       WHERE credential_id = $1 AND key = $2 FOR UPDATE`,
      [credentialId, key],
    );
    const row = rows[0];
    if (!row) throw new DomainError('ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is being processed; retry later');
    if (row.fingerprint !== fingerprint) {
      throw new DomainError('ERR_IDEMPOTENCY_422', 'This Idempotency-Key was used with a different request', {
        'Idempotency-Key': 'was already used with another method, path or body',
      });
    }
    if (row.status === 'done' && row.response_status !== null) {
      const stored = storedResponse(secrets, credentialId, key, { ...row, response_status: row.response_status });
      if (row.response_sealed === null) {
        // a plaintext row (written before migration 002 or by an older process): seal and clear it now
        await tx.query(
          `UPDATE idempotency_keys SET response_sealed = $3, response_content_type = $4, response_headers = '{}'::jsonb, response_body = NULL
           WHERE credential_id = $1 AND key = $2`,
          [credentialId, key, secrets.seal(stored.body, idempotencyContext(credentialId, key)), stored.contentType],
        );
      }
      return { kind: 'replay', ...stored } as const;
    }
    if (parseIso(row.locked_at) + IN_FLIGHT_TIMEOUT_SECONDS * 1_000_000 <= at) {
      await tx.query('UPDATE idempotency_keys SET locked_at = $3 WHERE credential_id = $1 AND key = $2', [credentialId, key, now]);
      return { kind: 'proceed' } as const;
    }
    throw new DomainError('ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is being processed; retry later');
  });
}

/**
 * Store the response of a claimed key (call for every final response that should be replayed, i.e. not 5xx): the
 * exact body text sent, sealed under the master key, with its content type and headers.
 */
export async function completeIdempotent(
  deps: Pick<IdempotencyDeps, 'db' | 'secrets'>,
  credentialId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await deps.db.query(
    `UPDATE idempotency_keys SET status = 'done', response_status = $3, response_sealed = $4, response_content_type = $5,
            response_headers = $6, response_body = NULL
     WHERE credential_id = $1 AND key = $2 AND status = 'in_flight'`,
    [
      credentialId,
      key,
      response.status,
      deps.secrets.seal(response.body, idempotencyContext(credentialId, key)),
      response.contentType,
      JSON.stringify(response.headers),
    ],
  );
}

/** Forget a claimed key (the request failed with a 5xx / crashed before a response), so a retry can run. */
export async function releaseIdempotent(db: Db, credentialId: string, key: string): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE credential_id = $1 AND key = $2 AND status = 'in_flight'`, [credentialId, key]);
}

/** Start-up step: seal and clear every plaintext stored response (rows from before migration 002). */
export async function sealLegacyIdempotencyResponses(tx: Db, secrets: SecretBox): Promise<number> {
  const { rows } = await tx.query<{ credential_id: string; key: string; response_body: unknown }>(
    `SELECT credential_id, key, response_body FROM idempotency_keys WHERE response_body IS NOT NULL ORDER BY credential_id, key FOR UPDATE`,
  );
  for (const row of rows) {
    await tx.query(
      `UPDATE idempotency_keys SET response_sealed = $3, response_content_type = 'application/json', response_headers = '{}'::jsonb,
              response_body = NULL
       WHERE credential_id = $1 AND key = $2`,
      [row.credential_id, row.key, secrets.seal(JSON.stringify(row.response_body), idempotencyContext(row.credential_id, row.key))],
    );
  }
  return rows.length;
}

/** Housekeeping for the worker. */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<number> {
  const { rows } = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key', [formatIso(clock.now())]);
  return rows.length;
}
