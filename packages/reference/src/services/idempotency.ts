import { createHash } from 'node:crypto';
import type { Db } from '../db/db.js';
import { DomainError } from '../domain/errors.js';
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

export type IdempotencyBegin =
  | { kind: 'proceed' }
  | { kind: 'replay'; status: number; body: unknown };

interface KeyRow {
  fingerprint: string;
  status: 'in_flight' | 'done';
  response_status: number | null;
  response_body: unknown;
  locked_at: string;
}

/**
 * Claim `key` for this request. New key => `proceed` (caller must later call complete or release). Same key:
 * other fingerprint => 422 ERR_IDEMPOTENCY_422; still in flight => 409 ERR_IDEMPOTENCY_409; done => `replay` with
 * the stored status and body (send header `Idempotent-Replayed: true`). Expired keys are forgotten.
 */
export async function beginIdempotent(db: Db, clock: Clock, credentialId: string, key: string, fingerprint: string): Promise<IdempotencyBegin> {
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
      `SELECT fingerprint, status, response_status, response_body, locked_at FROM idempotency_keys
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
      return { kind: 'replay', status: row.response_status, body: row.response_body } as const;
    }
    if (parseIso(row.locked_at) + IN_FLIGHT_TIMEOUT_SECONDS * 1_000_000 <= at) {
      await tx.query('UPDATE idempotency_keys SET locked_at = $3 WHERE credential_id = $1 AND key = $2', [credentialId, key, now]);
      return { kind: 'proceed' } as const;
    }
    throw new DomainError('ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is being processed; retry later');
  });
}

/** Store the response of a claimed key (call for every final response that should be replayed, i.e. not 5xx). */
export async function completeIdempotent(db: Db, credentialId: string, key: string, status: number, body: unknown): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET status = 'done', response_status = $3, response_body = $4
     WHERE credential_id = $1 AND key = $2 AND status = 'in_flight'`,
    [credentialId, key, status, JSON.stringify(body ?? null)],
  );
}

/** Forget a claimed key (the request failed with a 5xx / crashed before a response), so a retry can run. */
export async function releaseIdempotent(db: Db, credentialId: string, key: string): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE credential_id = $1 AND key = $2 AND status = 'in_flight'`, [credentialId, key]);
}

/** Housekeeping for the worker. */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<number> {
  const { rows } = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key', [formatIso(clock.now())]);
  return rows.length;
}
