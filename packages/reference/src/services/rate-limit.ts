import type { Db } from '../db/db.js';
import { addSeconds, formatIso, type Clock } from '../domain/time.js';

export const RATE_LIMIT = 100;
export const RATE_WINDOW_SECONDS = 10;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (RateLimit-Reset, and Retry-After when refused). */
  resetSeconds: number;
}

/**
 * Count one request of `credentialId` in the current fixed window (100 per 10 s by default). One atomic upsert,
 * so concurrent processes share the counter. Refused => 429 ERR_RATE_429 with Retry-After = resetSeconds.
 */
export async function hitRateLimit(
  db: Db,
  clock: Clock,
  credentialId: string,
  options: { limit?: number; windowSeconds?: number } = {},
): Promise<RateDecision> {
  const limit = options.limit ?? RATE_LIMIT;
  const windowSeconds = options.windowSeconds ?? RATE_WINDOW_SECONDS;
  const now = clock.now();
  const windowMicros = windowSeconds * 1_000_000;
  const start = Math.floor(now / windowMicros) * windowMicros;
  const { rows } = await db.query<{ count: number }>(
    `INSERT INTO rate_limit_windows (credential_id, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (credential_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
     RETURNING count`,
    [credentialId, formatIso(start)],
  );
  const count = rows[0]?.count ?? 1;
  const resetSeconds = Math.max(1, Math.ceil((start + windowMicros - now) / 1_000_000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/** Housekeeping for the worker: drop windows older than a minute. */
export async function purgeRateLimitWindows(db: Db, clock: Clock): Promise<number> {
  const { rows } = await db.query('DELETE FROM rate_limit_windows WHERE window_start < $1 RETURNING credential_id', [
    formatIso(addSeconds(clock.now(), -60)),
  ]);
  return rows.length;
}
