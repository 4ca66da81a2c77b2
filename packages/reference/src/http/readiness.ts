/**
 * Readiness (`GET /readyz`, D102): may this process be sent traffic now? The database answers `SELECT 1` and, when
 * REDIS_URL is set, Redis answers `PING`, each within `timeoutMs` (checked in parallel, so a probe costs at most that
 * once); and the process is not draining. Liveness (`GET /healthz`) checks none of this.
 *
 * After a write failed for want of space or another resource (a full disk: honest storage failures, D361), the
 * process is not ready (`checks.storage: "exhausted"`) until a real write succeeds again: while that failure stands,
 * each probe also makes one committed write (`StorageHealth.probe`), bounded like the others; a `SELECT 1` alone
 * would call a full disk ready.
 *
 * Every wait is bounded and nothing piles up behind a hung dependency: while a check's query is still pending, the
 * next probe waits on that same query instead of sending another.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Db } from '../db/db.js';
import type { StorageHealth } from '../db/storage-health.js';

export const READINESS_TIMEOUT_MS = 500;

/** `exhausted`: storage only (a write probe failed for want of space or another resource). */
export type CheckResult = 'ok' | 'unreachable' | 'timeout' | 'exhausted';

export interface ReadinessReport {
  ready: boolean;
  /** 'draining': the process is stopping (SIGTERM) and finishing what it accepted. */
  status: 'ready' | 'unavailable' | 'draining';
  /**
   * Each dependency checked (none while draining; `redis` only when REDIS_URL is set; `storage` only while a write
   * failure for want of a resource stands, and on the probe that ends it).
   */
  checks: { database?: CheckResult; redis?: CheckResult; storage?: CheckResult };
  /** The dependencies that failed, by name (empty when ready or draining). */
  failing: ('database' | 'redis' | 'storage')[];
}

export interface ReadinessLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
  /** From now on every check answers `draining` (called when the process starts its graceful stop). */
  markDraining(): void;
  close(): Promise<void>;
}

export interface ReadinessOptions {
  db: Pick<Db, 'query'>;
  /** Whether writes fail for want of a resource (D361 running out of a resource classified); unset: not checked. */
  storage?: StorageHealth;
  /** REDIS_URL; unset: Redis is not checked. */
  redisUrl?: string | undefined;
  timeoutMs?: number;
  logger?: ReadinessLogger;
}

/** `probe` at most once at a time; each caller waits at most `timeoutMs` for the pending one. */
function singleFlight(
  probe: () => Promise<unknown>,
  failed: (err: unknown) => CheckResult = () => 'unreachable',
): (timeoutMs: number) => Promise<CheckResult> {
  let pending: Promise<CheckResult> | undefined;
  return (timeoutMs) => {
    pending ??= probe().then(() => 'ok' as const, failed);
    const current = pending;
    void current.finally(() => {
      if (pending === current) pending = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref?.();
    });
    return Promise.race([current, timedOut]).finally(() => clearTimeout(timer));
  };
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const { logger } = options;
  let draining = false;
  let redis: Redis | undefined;
  const database = singleFlight(() => options.db.query('SELECT 1'));
  const { storage } = options;
  // the probe's own failure is what the storage health observes (a resource error keeps it failing; anything else,
  // e.g. the database away, is the database check's to report)
  const storageWrite = singleFlight(
    async () => {
      if (!storage) return;
      await storage.probe(options.db);
      storage.recovered();
    },
    (err) => {
      storage?.observe(err);
      return storage?.failingSince !== undefined ? 'exhausted' : 'unreachable';
    },
  );

  // A connection of its own, opened now (so the first probe finds it ready): the rate limiter's connection has its
  // own timeouts and breaker (http/rate-limit.ts), and a readiness probe must not queue behind rate-limit traffic.
  const redisClient = (): Redis => {
    if (redis) return redis;
    // ioredis is loaded only when REDIS_URL is set (as in http/rate-limit.ts, which has loaded it already)
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    redis = new RedisClient(options.redisUrl as string, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    redis.on('error', () => undefined); // reported by the probe's answer, not as an unhandled 'error'
    return redis;
  };
  const redisPing = singleFlight(async () => {
    const client = redisClient();
    if (client.status !== 'ready') {
      // the first probe (or one after a reconnect) waits for the connection, within the same bound
      await new Promise<void>((resolve, reject) => {
        const onReady = () => {
          client.off('end', onEnd);
          resolve();
        };
        const onEnd = () => {
          client.off('ready', onReady);
          reject(new Error('Redis connection ended'));
        };
        client.once('ready', onReady);
        client.once('end', onEnd);
        setTimeout(() => {
          client.off('ready', onReady);
          client.off('end', onEnd);
          reject(new Error('Redis not connected'));
        }, timeoutMs).unref();
      });
    }
    await client.ping();
  });

  if (options.redisUrl) redisClient();
  let lastFailing = '';
  return {
    async check() {
      if (draining) return { ready: false, status: 'draining', checks: {}, failing: [] };
      const [db, cache, disk] = await Promise.all([
        database(timeoutMs),
        options.redisUrl ? redisPing(timeoutMs) : undefined,
        storage?.failingSince !== undefined ? storageWrite(timeoutMs) : undefined,
      ]);
      const checks: ReadinessReport['checks'] = { database: db, ...(cache ? { redis: cache } : {}), ...(disk ? { storage: disk } : {}) };
      const failing = (['database', 'redis', 'storage'] as const).filter((name) => checks[name] !== undefined && checks[name] !== 'ok');
      // one line when readiness changes, not one per probe
      const key = failing.map((name) => `${name}:${checks[name]}`).join(',');
      if (key !== lastFailing) {
        if (key === '') logger?.info({ checks }, 'readiness: ready again');
        else logger?.warn({ checks, failing }, 'readiness: not ready');
        lastFailing = key;
      }
      return { ready: failing.length === 0, status: failing.length === 0 ? 'ready' : 'unavailable', checks, failing: [...failing] };
    },
    markDraining() {
      draining = true;
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
