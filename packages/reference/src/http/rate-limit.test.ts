import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startThrowawayRedis, type ThrowawayRedis } from '../testing/redis-server.js';
import { createRateLimiter, type RateLimiter, type RateLimiterLogger } from './rate-limit.js';

const REDIS_URL = process.env['PAYGATE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

function recordingLogger(): RateLimiterLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (_o, m) => lines.push(`info ${m}`),
    warn: (_o, m) => lines.push(`warn ${m}`),
    error: (_o, m) => lines.push(`error ${m}`),
  };
}

const open: RateLimiter[] = [];
function limiter(...args: Parameters<typeof createRateLimiter>): RateLimiter {
  const l = createRateLimiter(...args);
  open.push(l);
  return l;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function hits(l: RateLimiter, key: string, n: number): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push((await l.hit(key)).allowed);
  return out;
}

describe('rate limiter in memory', () => {
  it('allows `limit` requests per window and key, then refuses with the seconds to wait', async () => {
    const l = limiter({ defaults: { limit: 3, windowSeconds: 60 } });
    expect(l.kind).toBe('memory');
    const first = await l.hit('cred-a');
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    await l.hit('cred-a');
    expect(await l.hit('cred-a')).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await l.hit('cred-a');
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThan(0);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    // another key has its own budget
    expect(await l.hit('cred-b')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('a per-call limit (tests, anonymous routes) is a limiter of its own size', async () => {
    const l = limiter({ defaults: { limit: 100, windowSeconds: 1 } });
    expect(await hits(l, 'k', 2)).toEqual([true, true]);
    expect((await l.hit('k', { limit: 1, windowSeconds: 3600 })).allowed).toBe(true);
    expect((await l.hit('k', { limit: 1, windowSeconds: 3600 })).allowed).toBe(false);
  });
});

describe('rate limiter in Redis', () => {
  it('two processes on one Redis share one limit', async () => {
    const keyPrefix = `paygate-test:${randomUUID()}`;
    const a = limiter({ defaults: { limit: 10, windowSeconds: 60 }, redisUrl: REDIS_URL, keyPrefix });
    const b = limiter({ defaults: { limit: 10, windowSeconds: 60 }, redisUrl: REDIS_URL, keyPrefix });
    expect(a.kind).toBe('redis');
    expect(await a.ready()).toBe(true);
    expect(await b.ready()).toBe(true);
    const both = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).hit('cred-shared')));
    expect(both.filter((d) => d.allowed)).toHaveLength(10);
    expect(both.filter((d) => !d.allowed)).toHaveLength(20);
  });

  describe('when Redis goes away', () => {
    let server: ThrowawayRedis | undefined;
    afterAll(async () => {
      await server?.kill();
    });

    it('keeps answering with a per-process limit (no error), says so once, and shares again when it is back', {
      timeout: 30_000,
    }, async () => {
      server = await startThrowawayRedis();
      const logger = recordingLogger();
      const url = server.url;
      const a = limiter({ defaults: { limit: 5, windowSeconds: 60 }, redisUrl: url, logger, keyPrefix: 'outage' });
      const b = limiter({ defaults: { limit: 5, windowSeconds: 60 }, redisUrl: url, keyPrefix: 'outage' });
      expect(await a.ready()).toBe(true);
      expect(await b.ready()).toBe(true);
      expect(await hits(a, 'shared', 3)).toEqual([true, true, true]);
      expect(await hits(b, 'shared', 3)).toEqual([true, true, false]); // one limit across both

      await server.kill();
      await new Promise((r) => setTimeout(r, 300));
      // Redis is gone: every call still answers, limited per process by the insurance limiter
      const during = await hits(a, 'during', 7);
      expect(during).toEqual([true, true, true, true, true, false, false]);
      expect(logger.lines.filter((l) => l.startsWith('warn'))).toEqual([
        'warn rate limiter: Redis is unreachable; limits are per process until it is back',
      ]);

      await server.restart();
      // ioredis reconnects by itself (backoff); wait for the shared limit to come back
      const deadline = Date.now() + 15_000;
      while (!logger.lines.includes('info rate limiter: Redis is back; limits are shared again') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(logger.lines).toContain('info rate limiter: Redis is back; limits are shared again');
      expect(await b.ready(15_000)).toBe(true);
      expect(await hits(a, 'after', 4)).toEqual([true, true, true, true]);
      expect(await hits(b, 'after', 2)).toEqual([true, false]);
    });
  });
});

describe('rate limiter when Redis hangs (SIGSTOP: connection open, no answer) (D95)', () => {
  let server: ThrowawayRedis | undefined;
  afterAll(async () => {
    server?.resume();
    await server?.kill();
  });

  it('one command timeout at most, then the per-process limiter at once; logged once each way; shared again after', {
    timeout: 30_000,
  }, async () => {
    server = await startThrowawayRedis();
    const logger = recordingLogger();
    const TIMEOUT = 150;
    const l = limiter({
      defaults: { limit: 5, windowSeconds: 60 },
      redisUrl: server.url,
      redisTimeoutMs: TIMEOUT,
      redisCooldownMs: 200,
      logger,
      keyPrefix: `hang:${randomUUID()}`,
    });
    expect(await l.ready()).toBe(true);
    expect(await hits(l, 'k', 2)).toEqual([true, true]);

    server.pause();
    const timed = async (key: string) => {
      const started = performance.now();
      const d = await l.hit(key);
      return { allowed: d.allowed, ms: performance.now() - started };
    };
    // the first calls wait for the command timeout (concurrent ones together), then fall back
    const first = await Promise.all([timed('k'), timed('k')]);
    expect(first.every((x) => x.allowed)).toBe(true);
    expect(Math.max(...first.map((x) => x.ms))).toBeLessThan(TIMEOUT + 100);
    // the breaker is open: the next calls never touch Redis (no wait), counted per process
    const later = await Promise.all(Array.from({ length: 6 }, () => timed('other')));
    expect(Math.max(...later.map((x) => x.ms))).toBeLessThan(50);
    expect(later.map((x) => x.allowed)).toEqual([true, true, true, true, true, false]);
    // probes while hung keep failing without another log line
    await new Promise((r) => setTimeout(r, 3 * 200 + TIMEOUT));
    expect(logger.lines.filter((x) => x.startsWith('warn'))).toEqual([
      'warn rate limiter: Redis is unreachable; limits are per process until it is back',
    ]);

    server.resume();
    const deadline = Date.now() + 10_000;
    while (!logger.lines.includes('info rate limiter: Redis is back; limits are shared again') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(logger.lines.filter((x) => !x.startsWith('error'))).toEqual([
      'warn rate limiter: Redis is unreachable; limits are per process until it is back',
      'info rate limiter: Redis is back; limits are shared again',
    ]);
    // Redis counts again: 'k' had 2 shared hits (plus whatever the hung commands added when Redis woke up)
    const after = await l.hit('fresh');
    expect(after).toMatchObject({ allowed: true, remaining: 4 });
  });
});
