import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REDIS_BACK_MESSAGE, REDIS_DOWN_MESSAGE, RedisBreaker, withinTimeout } from './redis-breaker.js';

const TIMEOUT = 100;
const COOLDOWN = 1000;

/** A Redis whose PING answers while `up`, and hangs (never answers) while not. */
class FakeRedis extends EventEmitter {
  up = false;
  pings = 0;
  ping(): Promise<unknown> {
    this.pings += 1;
    return this.up ? Promise.resolve('PONG') : new Promise(() => undefined);
  }
}

function setup() {
  const redis = new FakeRedis();
  const lines: string[] = [];
  const logger = { info: (_o: object, m?: string) => lines.push(`info ${m}`), warn: (_o: object, m?: string) => lines.push(`warn ${m}`) };
  const breaker = new RedisBreaker(redis, TIMEOUT, COOLDOWN, logger);
  return { redis, lines, breaker };
}

/** Past every timer due within `ms` (the probe's timeout is confirmed on setImmediate, which fake timers also run). */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('RedisBreaker (D95 Redis commands bounded by a timeout)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens at the first failure, probes each cool-down while Redis hangs, and logs the outage once each way', async () => {
    const { redis, lines, breaker } = setup();
    expect(breaker.usable).toBe(true);
    breaker.trip(new Error('Redis did not answer within 100 ms'));
    breaker.trip(new Error('a second request failed the same way'));
    expect(breaker.usable).toBe(false);
    await pass(3 * (COOLDOWN + TIMEOUT));
    expect(redis.pings).toBeGreaterThanOrEqual(2);
    expect(breaker.usable).toBe(false);

    redis.up = true;
    await pass(COOLDOWN + TIMEOUT);
    // the probe answered: requests ask Redis again, but the outage is over only after a whole quiet cool-down
    expect(breaker.usable).toBe(true);
    expect(lines).toEqual([`warn ${REDIS_DOWN_MESSAGE}`]);
    await pass(COOLDOWN);
    expect(lines).toEqual([`warn ${REDIS_DOWN_MESSAGE}`, `info ${REDIS_BACK_MESSAGE}`]);
    breaker.stop();
  });

  it('a failure while recovering is the same outage: opened again without a second log line, closed once Redis stays up', async () => {
    const { redis, lines, breaker } = setup();
    breaker.trip(new Error('hung'));
    redis.up = true;
    await pass(COOLDOWN + TIMEOUT);
    expect(breaker.usable).toBe(true);

    // a loaded machine (or a Redis working off its backlog) makes one command miss the timeout right after
    breaker.trip(new Error('Redis did not answer within 100 ms'));
    expect(breaker.usable).toBe(false);
    await pass(COOLDOWN + TIMEOUT); // the next probe answers
    expect(breaker.usable).toBe(true);
    await pass(COOLDOWN);
    expect(lines).toEqual([`warn ${REDIS_DOWN_MESSAGE}`, `info ${REDIS_BACK_MESSAGE}`]);

    // a new outage after the breaker closed is logged again
    breaker.trip(new Error('refused'));
    expect(lines).toEqual([`warn ${REDIS_DOWN_MESSAGE}`, `info ${REDIS_BACK_MESSAGE}`, `warn ${REDIS_DOWN_MESSAGE}`]);
    breaker.stop();
  });

  it('probes at once when the client reconnects, and nothing after stop()', async () => {
    const { redis, lines, breaker } = setup();
    breaker.trip(new Error('closed'));
    redis.up = true;
    redis.emit('ready');
    await pass(TIMEOUT);
    expect(breaker.usable).toBe(true);
    breaker.stop();
    await pass(10 * COOLDOWN);
    expect(lines).toEqual([`warn ${REDIS_DOWN_MESSAGE}`]);
  });
});

describe('withinTimeout', () => {
  it('resolves with the answer, and rejects a command that does not answer in time', async () => {
    await expect(withinTimeout(Promise.resolve('PONG'), 50)).resolves.toBe('PONG');
    await expect(withinTimeout(new Promise(() => undefined), 20)).rejects.toThrow('Redis did not answer within 20 ms');
  });
});
