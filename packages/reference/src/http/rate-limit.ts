import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
/** Where the limiter says that Redis went away or came back (pino's shape). */
export interface RateLimiterLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}


export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit?: number;
  /** Window length in seconds. */
  windowSeconds?: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (RateLimit-Reset, and Retry-After when refused). */
  resetSeconds: number;
}

/** Counts requests per key; `hit` never rejects (a store failure falls back to the per-process limit). */
export interface RateLimiter {
  /** `memory`: per process; `redis`: shared by every process on one Redis (per process while Redis is away). */
  readonly kind: 'memory' | 'redis';
  hit(key: string, options?: RateLimitOptions): Promise<RateDecision>;
  /** Resolves once the store answers (Redis connected), or after `timeoutMs`: until then limits are per process. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface CreateRateLimiterOptions {
  /** Defaults for `hit` calls that do not pass their own. */
  defaults: Required<RateLimitOptions>;
  /** `REDIS_URL`: share the limit between processes. Unset: in memory (one process, e.g. PGlite). */
  redisUrl?: string | undefined;
  logger?: RateLimiterLogger;
  /** Key prefix in Redis (tests use their own). */
  keyPrefix?: string;
}

function decision(res: RateLimiterRes, limit: number, allowed: boolean): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * The gateway's rate limiter, on `rate-limiter-flexible`: fixed windows per key, in memory or in Redis. With Redis,
 * every limiter carries an in-memory insurance limiter of the same size: while Redis is unreachable each process
 * keeps limiting on its own (logged once when it happens and once when Redis is back), and no request ever fails
 * because of the limiter.
 */
export function createRateLimiter(options: CreateRateLimiterOptions): RateLimiter {
  const { defaults, logger } = options;
  const keyPrefix = options.keyPrefix ?? 'paygate:rl';
  let redis: Redis | undefined;
  if (options.redisUrl) {
    // ioredis is loaded only when REDIS_URL is set: it is the heaviest module of a start-up without it (~100 ms of
    // the cold start on these cores), and a single process or PGlite never needs it.
    const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    // No offline queue and one attempt per command: a Redis outage must fail fast into the insurance limiter
    // instead of holding requests (rate-limiter-flexible's advice for ioredis).
    redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
    let degraded = false;
    redis.on('error', (err: Error) => {
      if (degraded) return;
      degraded = true;
      logger?.warn({ err: err.message }, 'rate limiter: Redis is unreachable; limits are per process until it is back');
    });
    redis.on('ready', () => {
      if (!degraded) return;
      degraded = false;
      logger?.info({}, 'rate limiter: Redis is back; limits are shared again');
    });
  }
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (limit: number, windowSeconds: number): RateLimiterAbstract => {
    const id = `${limit}/${windowSeconds}`;
    let limiter = limiters.get(id);
    if (limiter === undefined) {
      const sized = { points: limit, duration: windowSeconds, keyPrefix: `${keyPrefix}:${id}` };
      limiter = redis
        ? new RateLimiterRedis({ ...sized, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(sized) })
        : new RateLimiterMemory(sized);
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    kind: redis ? 'redis' : 'memory',
    async hit(key, hitOptions = {}) {
      const limit = hitOptions.limit ?? defaults.limit;
      const windowSeconds = hitOptions.windowSeconds ?? defaults.windowSeconds;
      try {
        return decision(await limiterFor(limit, windowSeconds).consume(key), limit, true);
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return decision(refusal, limit, false);
        // the store and its insurance both failed (cannot happen with the memory insurance): let the request through
        logger?.error({ err: refusal }, 'rate limiter failed; request allowed');
        return { allowed: true, limit, remaining: limit, resetSeconds: windowSeconds };
      }
    },
    async ready(timeoutMs = 2000) {
      const client = redis;
      if (client === undefined || client.status === 'ready') return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          client.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once('ready', onReady);
      });
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
