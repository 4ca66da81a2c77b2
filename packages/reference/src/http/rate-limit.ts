import type { Db } from '../db/db.js';
import { addSeconds, formatIso, type Clock } from '../core/clock.js';

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
  return decide(rows[0]?.count ?? 1, limit, start + windowMicros - now);
}

function decide(count: number, limit: number, microsLeft: number): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil(microsLeft / 1_000_000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

export interface RateLimitOptions {
  limit?: number;
  windowSeconds?: number;
}

/** Counts requests per credential in fixed windows; same decisions as {@link hitRateLimit}. */
export interface RateLimiter {
  /** `memory`: in-process counters (PGlite); `database`: the shared `rate_limit_windows` upsert (PostgreSQL). */
  readonly kind: 'memory' | 'database';
  hit(credentialId: string, options?: RateLimitOptions): Promise<RateDecision>;
}

/**
 * An in-process fixed-window counter: exactly {@link hitRateLimit}'s semantics (same window boundaries from the same
 * clock, same decision and headers) without a database write. Only correct when ONE process serves the database,
 * which PGlite guarantees by construction. Windows of past periods are dropped once per new period.
 */
export function createMemoryRateLimiter(clock: Clock): RateLimiter {
  const windows = new Map<string, { start: number; end: number; count: number }>();
  let sweptBefore = 0;
  return {
    kind: 'memory',
    async hit(credentialId, options = {}) {
      const limit = options.limit ?? RATE_LIMIT;
      const windowSeconds = options.windowSeconds ?? RATE_WINDOW_SECONDS;
      const now = clock.now();
      const windowMicros = windowSeconds * 1_000_000;
      const start = Math.floor(now / windowMicros) * windowMicros;
      if (start > sweptBefore) {
        // a new period began (for some window size): forget windows that can no longer be current
        for (const [key, w] of windows) if (w.end <= now) windows.delete(key);
        sweptBefore = start;
      }
      const key = `${windowSeconds}\u0000${credentialId}`;
      let w = windows.get(key);
      if (w === undefined || w.start !== start) windows.set(key, (w = { start, end: start + windowMicros, count: 0 }));
      w.count++;
      return decide(w.count, limit, start + windowMicros - now);
    },
  };
}

/**
 * The limiter for a database: in memory on PGlite (single process by construction, so an in-process counter is the
 * whole truth and every GET stays read-only), the shared database counter on PostgreSQL (several processes).
 */
export function createRateLimiter(db: Db, clock: Clock): RateLimiter {
  if (db.kind === 'pglite') return createMemoryRateLimiter(clock);
  return { kind: 'database', hit: (credentialId, options) => hitRateLimit(db, clock, credentialId, options) };
}

/** Housekeeping for the worker: drop windows older than a minute. */
export async function purgeRateLimitWindows(db: Db, clock: Clock): Promise<number> {
  const { rows } = await db.query('DELETE FROM rate_limit_windows WHERE window_start < $1 RETURNING credential_id', [
    formatIso(addSeconds(clock.now(), -60)),
  ]);
  return rows.length;
}
