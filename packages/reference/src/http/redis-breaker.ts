/**
 * The circuit breaker in front of the rate limiter's Redis (D95 Redis commands bounded by a timeout) and the timeout
 * every Redis command of the limiter is bounded by. In a file of its own so its states can be tested with a fake
 * Redis and fake timers (redis-breaker.test.ts); `createRateLimiter` (rate-limit.ts) uses it.
 */

/** What the breaker needs of an ioredis client: a PING, and the event of a (re)connection. */
export interface BreakerRedis {
  ping(): Promise<unknown>;
  on(event: 'ready', listener: () => void): unknown;
}

/** Where the breaker logs the start and the end of an outage (the gateway's pino logger). */
export interface BreakerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const REDIS_DOWN_MESSAGE = 'rate limiter: Redis is unreachable; limits are per process until it is back';
export const REDIS_BACK_MESSAGE = 'rate limiter: Redis is back; limits are shared again';

/** A Redis command that did not answer within the timeout. */
class RedisTimeoutError extends Error {
  override readonly name = 'RedisTimeoutError';
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
  }
}

/**
 * `command`, or a RedisTimeoutError after `ms`. The timeout is confirmed one event-loop turn later (`setImmediate`
 * runs after the poll phase): when this process was busy (a burst of requests, a slow start) the timer can fire
 * before an answer that is already in the socket is read, and that is not a hung Redis.
 */
export function withinTimeout<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new RedisTimeoutError(ms))), ms);
    command.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * The circuit breaker in front of Redis (D95 Redis commands bounded by a timeout). Closed: every hit asks Redis. The
 * first failure (a command timeout, a refused or closed connection) opens it: for `cooldownMs` every hit goes straight
 * to the per-process limiter, and a background PING (bounded by the same command timeout) probes Redis at the end of
 * each cool-down. The first answer half-closes it (`recovering`): hits ask Redis again, and once Redis has answered
 * them for a whole cool-down without a failure the breaker is closed. A failure while recovering opens it again as
 * part of the same outage. So each outage is logged once when it starts and once when it is over, however often
 * Redis (or a loaded machine) stutters in between (D95 amended: a loaded test machine logged one hang as two).
 * Requests never wait on a probe.
 */
export class RedisBreaker {
  private state: 'closed' | 'open' | 'recovering' = 'closed';
  private probeTimer: NodeJS.Timeout | undefined;
  private recoveredTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly redis: BreakerRedis,
    private readonly timeoutMs: number,
    private readonly cooldownMs: number,
    private readonly logger: BreakerLogger | undefined,
  ) {
    // a reconnect (Redis restarted) is worth a probe at once rather than at the end of the cool-down
    redis.on('ready', () => {
      if (this.state === 'open') this.schedule(0);
    });
  }

  /** Whether hits may ask Redis now. */
  get usable(): boolean {
    return this.state !== 'open';
  }

  /** A Redis command failed: the per-process limiter serves until a probe succeeds. */
  trip(err: unknown): void {
    if (this.state === 'open' || this.stopped) return;
    // recovering: the outage logged when it began is not over yet
    if (this.state === 'closed') this.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, REDIS_DOWN_MESSAGE);
    this.state = 'open';
    clearTimeout(this.recoveredTimer);
    this.schedule(this.cooldownMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => void this.probe(), delayMs);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.state !== 'open' || this.stopped) return;
    try {
      await withinTimeout(this.redis.ping(), this.timeoutMs);
    } catch {
      this.schedule(this.cooldownMs);
      return;
    }
    if (this.state !== 'open' || this.stopped) return;
    this.state = 'recovering';
    this.recoveredTimer = setTimeout(() => {
      if (this.state !== 'recovering' || this.stopped) return;
      this.state = 'closed';
      this.logger?.info({}, REDIS_BACK_MESSAGE);
    }, this.cooldownMs);
    this.recoveredTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.probeTimer);
    clearTimeout(this.recoveredTimer);
  }
}
