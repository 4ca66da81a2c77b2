import { describe, expect, it, vi } from 'vitest';
import { createTransport } from './transport.js';
import { MAX_UNAVAILABLE_WAIT_MS, unavailableRetryDelay } from './unavailable-retry.js';

describe('unavailableRetryDelay (D93)', () => {
  it.each([
    // status, Retry-After ms, backoff ms, random, expected
    ['503, Retry-After above the backoff: Retry-After', 503, 1000, 400, 0, 1000],
    ['503, backoff above Retry-After: the backoff (it grows while the outage lasts)', 503, 1000, 4000, 0, 4000],
    ['503, no Retry-After: the backoff', 503, undefined, 700, 0, 700],
    ['503, full jitter adds 20 %', 503, 1000, 400, 1, 1200],
    ['503, half jitter adds 10 %', 503, 2000, 400, 0.5, 2200],
    ['503, Retry-After 0: the backoff', 503, 0, 300, 0, 300],
    ['503, Retry-After at the cap: waited, capped with its jitter', 503, MAX_UNAVAILABLE_WAIT_MS, 100, 1, MAX_UNAVAILABLE_WAIT_MS],
  ] as const)('%s', (_what, status, retryAfterMs, backoffMs, random, expected) => {
    expect(unavailableRetryDelay({ status, retryAfterMs, attempt: 0, backoffMs, random: () => random })).toBe(expected);
  });

  it.each([
    ['429 (the transport honours its Retry-After exactly)', 429, 7000],
    ['500', 500, undefined],
    ['502', 502, undefined],
    ['503 asking for more than a client should wait', 503, MAX_UNAVAILABLE_WAIT_MS + 1],
  ] as const)('no say: %s', (_what, status, retryAfterMs) => {
    expect(unavailableRetryDelay({ status, retryAfterMs, attempt: 1, backoffMs: 500 })).toBeUndefined();
  });
});

describe('the transport re-sends a 503 only where that is safe, waiting at least Retry-After', () => {
  const unavailable = () =>
    new Response(JSON.stringify({ success: false, error: { code: 'ERR_UNAVAILABLE_503', message: 'x' } }), {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
    });
  const ok = () => new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });

  function setup(responses: Response[]) {
    const methods: string[] = [];
    const keys: (string | null)[] = [];
    const sleep = vi.fn(async (_ms: number) => undefined);
    const api = createTransport<Record<string, never>>({
      baseUrl: 'https://api.test',
      clientId: 'ck',
      clientSecret: 'cs',
      sleep,
      idempotencyKey: () => 'key-1',
      fetch: (async (input: Request) => {
        methods.push(input.method);
        keys.push(input.headers.get('idempotency-key'));
        return responses.shift()!;
      }) as unknown as typeof fetch,
    });
    // why the cast: the hand-written paths of this test are untyped; the transport's behaviour does not depend on them
    const call = api as unknown as { request(method: string, path: string, init?: object): Promise<{ response: Response }> };
    return { call, methods, keys, sleep };
  }

  it.each(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'])('%s: re-sent after at least Retry-After (1 s), then answered', async (method) => {
    const { call, methods, sleep } = setup([unavailable(), unavailable(), ok()]);
    const { response } = await call.request(method, '/things');
    expect(response.status).toBe(200);
    expect(methods).toEqual([method, method, method]);
    for (const [ms] of sleep.mock.calls) {
      expect(ms).toBeGreaterThanOrEqual(1000);
      expect(ms).toBeLessThanOrEqual(1000 * 1.2);
    }
  });

  it('a POST is re-sent with the same Idempotency-Key (the server runs it at most once)', async () => {
    const { call, keys } = setup([unavailable(), ok()]);
    const { response } = await call.request('POST', '/things', { body: {} });
    expect(response.status).toBe(200);
    expect(keys).toEqual(['key-1', 'key-1']);
  });

  it('PATCH is not re-sent: the 503 goes to the caller', async () => {
    const { call, methods, sleep } = setup([unavailable(), ok()]);
    const { response } = await call.request('PATCH', '/things', { body: {} });
    expect(response.status).toBe(503);
    expect(methods).toEqual(['PATCH']);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('attempts are bounded: after maxRetries (default 2) the 503 goes to the caller', async () => {
    const { call, methods } = setup([unavailable(), unavailable(), unavailable(), ok()]);
    const { response } = await call.request('GET', '/things');
    expect(response.status).toBe(503);
    expect(methods).toHaveLength(3);
  });
});
