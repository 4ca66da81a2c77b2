import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type {
  RateLimiterMemory as RateLimiterMemoryClass,
  RateLimiterRedis as RateLimiterRedisClass,
  RateLimiterRes as RateLimiterResClass,
} from 'rate-limiter-flexible';
import { DEFAULT_REDIS_TIMEOUT_MS } from '../core/config.js';
import { type BreakerLogger, RedisBreaker, withinTimeout } from './redis-breaker.js';

// D171: rate-limiter-flexible's index requires every store it has (Mongo, MySQL, DynamoDB, Prisma...: ~35 modules) at
// start-up; the gateway needs the memory store and its result class, and the Redis store only with REDIS_URL. The
// package has no `exports` map: these are its documented `lib/` classes, the same files its index re-exports.
const requireLib = createRequire(import.meta.url);
const RateLimiterMemory = requireLib('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof RateLimiterMemoryClass;
const RateLimiterRes = requireLib('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof RateLimiterResClass;
type RateLimiterMemory = RateLimiterMemoryClass;
type RateLimiterRedis = RateLimiterRedisClass;
type RateLimiterRes = RateLimiterResClass;
let RedisStore: typeof RateLimiterRedisClass | undefined;
/** Where the limiter says that Redis went away or came back (pino's shape). */
/** The gateway's logger as the limiter uses it: the breaker's outage lines, and errors. */
export interface RateLimiterLogger extends BreakerLogger {
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
  /**
   * How long one Redis command may take (ms, PAYGATE_REDIS_TIMEOUT_MS, default 500): a hung Redis costs a request at
   * most this, once, before the per-process limiter takes over (D95 Redis commands bounded by a timeout).
   */
  redisTimeoutMs?: number;
  /** How long the per-process limiter serves alone after a Redis failure before Redis is probed again (ms, default 1000). */
  redisCooldownMs?: number;
  logger?: RateLimiterLogger;
  /** Key prefix in Redis (tests use their own). */
  keyPrefix?: string;
}

const DEFAULT_REDIS_COOLDOWN_MS = 1000;

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
 * every limiter size has an in-memory twin of the same size that takes over for this process whenever Redis fails or
 * hangs (every command is bounded by `redisTimeoutMs`, and a circuit breaker keeps later requests off Redis until it
 * answers again, D95): limits become per process, logged once when it happens and once when Redis is back, and no
 * request ever fails or waits more than one command timeout because of the limiter.
 */
export function createRateLimiter(options: CreateRateLimiterOptions): RateLimiter {
  const { defaults, logger } = options;
  const keyPrefix = options.keyPrefix ?? 'paygate:rl';
  const timeoutMs = options.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  let redis: Redis | undefined;
  let breaker: RedisBreaker | undefined;
  if (options.redisUrl) {
    // ioredis is loaded only when REDIS_URL is set: it is the heaviest module of a start-up without it
    // (docs/benchmarks.md#ioredis-at-start-up), and a single process or PGlite never needs it.
    const { Redis } = requireLib('ioredis') as typeof import('ioredis');
    // No offline queue and one attempt per command: a closed connection fails at once. A hung one (the process
    // stopped, the network silent) keeps its TCP connection: only a timeout bounds that wait (D95 Redis commands bounded by a timeout). Requests wait
    // `timeoutMs` (withinTimeout); ioredis' own commandTimeout, a few times longer, releases a hung command's promise.
    redis = new Redis(options.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 4 * timeoutMs,
      lazyConnect: false,
    });
    breaker = new RedisBreaker(redis, timeoutMs, options.redisCooldownMs ?? DEFAULT_REDIS_COOLDOWN_MS, logger);
    const failing = breaker;
    // ioredis reports every failed (re)connection here; without a listener Node would crash the process. The breaker
    // logs the outage once.
    redis.on('error', (err: Error) => failing.trip(err));
  }
  const memory = new Map<string, RateLimiterMemory>();
  const shared = new Map<string, RateLimiterRedis>();
  const sizedFor = (limit: number, windowSeconds: number) => {
    const id = `${limit}/${windowSeconds}`;
    return { id, sized: { points: limit, duration: windowSeconds, keyPrefix: `${keyPrefix}:${id}` } };
  };
  // the defaults' limiter, looked up without building its id on every request
  const defaultMemory = new RateLimiterMemory(sizedFor(defaults.limit, defaults.windowSeconds).sized);
  memory.set(sizedFor(defaults.limit, defaults.windowSeconds).id, defaultMemory);
  const memoryLimiter = (limit: number, windowSeconds: number): RateLimiterMemory => {
    if (limit === defaults.limit && windowSeconds === defaults.windowSeconds) return defaultMemory;
    const { id, sized } = sizedFor(limit, windowSeconds);
    let limiter = memory.get(id);
    if (limiter === undefined) memory.set(id, (limiter = new RateLimiterMemory(sized)));
    return limiter;
  };
  const redisLimiter = (client: Redis, limit: number, windowSeconds: number): RateLimiterRedis => {
    const { id, sized } = sizedFor(limit, windowSeconds);
    let limiter = shared.get(id);
    // no insurance limiter inside: the fallback is decided here, so the breaker sees every failure
    if (limiter === undefined) {
      RedisStore ??= requireLib('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof RateLimiterRedisClass;
      shared.set(id, (limiter = new RedisStore({ ...sized, storeClient: client, rejectIfRedisNotReady: true })));
    }
    return limiter;
  };
  const consume = async (key: string, limit: number, windowSeconds: number): Promise<RateLimiterRes> => {
    if (redis !== undefined && breaker?.usable) {
      try {
        return await withinTimeout(redisLimiter(redis, limit, windowSeconds).consume(key), timeoutMs);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw err; // over the limit: a refusal, not a failure
        breaker.trip(err);
      }
    }
    return memoryLimiter(limit, windowSeconds).consume(key);
  };
  return {
    kind: redis ? 'redis' : 'memory',
    async hit(key, hitOptions = {}) {
      const limit = hitOptions.limit ?? defaults.limit;
      const windowSeconds = hitOptions.windowSeconds ?? defaults.windowSeconds;
      try {
        return decision(await consume(key, limit, windowSeconds), limit, true);
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return decision(refusal, limit, false);
        // the memory limiter failed (cannot happen): let the request through
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
      breaker?.stop();
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
