import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { toResult, type ErrorEnvelope } from './result.js';
import type { Middleware } from 'openapi-fetch';
import { backoffDelay, createTransport, parseRetryAfter, type PaygateClientOptions } from './transport.js';

// Minimal hand-written `paths` in openapi-typescript's shape.
type Json<T> = { headers: Record<string, unknown>; content: { 'application/json': T } };
interface paths {
  '/orders': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: { query?: { page?: number }; header?: { 'X-Merchant-ID'?: string }; path?: never; cookie?: never };
      requestBody?: never;
      responses: { 200: Json<{ count: number }>; 429: Json<ErrorEnvelope<'ERR_RATE_429'>> };
    };
    post: {
      parameters: { query?: never; header?: { 'X-Merchant-ID'?: string; 'Idempotency-Key'?: string }; path?: never; cookie?: never };
      requestBody: { content: { 'application/json': { amount: string } } };
      responses: { 201: Json<{ order_id: string }>; 409: Json<ErrorEnvelope<'ERR_ORDER_409' | 'ERR_IDEMPOTENCY_409'>> };
    };
    patch: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      requestBody: { content: { 'application/json': { amount: string } } };
      responses: { 200: Json<{ order_id: string }> };
    };
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const envelope = (code: string, message = 'x') => ({ success: false, error: { code, message } });

function setup(responses: (Response | Error)[], extra: Partial<PaygateClientOptions> = {}) {
  const requests: { method: string; url: string; headers: Headers; body: string }[] = [];
  const queue = [...responses];
  const fetchFn = vi.fn(async (input: RequestInfo | URL) => {
    const req = input as Request;
    requests.push({ method: req.method, url: req.url, headers: new Headers(req.headers), body: await req.text() });
    const next = queue.shift();
    if (next === undefined) throw new Error('fake fetch: no more responses');
    if (next instanceof Error) throw next;
    return next;
  });
  const sleep = vi.fn(async (_ms: number) => undefined);
  let n = 0;
  const api = createTransport<paths>({
    baseUrl: 'https://api.test/v1/',
    clientId: 'ck_test_abc',
    clientSecret: 'cs_secret',
    merchantId: '12345678',
    fetch: fetchFn as unknown as typeof fetch,
    sleep,
    idempotencyKey: () => `key-${++n}`,
    ...extra,
  });
  return { api, requests, sleep, fetchFn };
}

describe('createTransport middleware', () => {
  it('sets auth, merchant and client headers; Idempotency-Key only on POST', async () => {
    const { api, requests } = setup([json(200, { count: 0 }), json(201, { order_id: 'OD1' })]);
    await api.GET('/orders', { params: { query: { page: 2 } } });
    const post = await toResult(api.POST('/orders', { body: { amount: '10.00' } }));
    expect(post.ok && post.data.order_id).toBe('OD1');

    const [get, create] = requests;
    expect(get!.url).toBe('https://api.test/v1/orders?page=2');
    for (const r of [get!, create!]) {
      expect(r.headers.get('x-client-id')).toBe('ck_test_abc');
      expect(r.headers.get('x-client-secret')).toBe('cs_secret');
      expect(r.headers.get('x-merchant-id')).toBe('12345678');
      expect(r.headers.get('x-paygate-client')).toMatch(/^paygate-client-ts\/0\.1\.0 node\/v\d+/);
    }
    expect(get!.headers.has('idempotency-key')).toBe(false);
    expect(create!.headers.get('idempotency-key')).toBe('key-1');
    expect(create!.body).toBe('{"amount":"10.00"}');
  });

  it('uses a fresh UUID per logical POST by default', async () => {
    const { api, requests } = setup([json(201, { order_id: 'OD1' }), json(201, { order_id: 'OD2' })], { idempotencyKey: undefined });
    await api.POST('/orders', { body: { amount: '1.00' } });
    await api.POST('/orders', { body: { amount: '1.00' } });
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('lets a call override X-Merchant-ID and Idempotency-Key via header params', async () => {
    const { api, requests } = setup([json(201, { order_id: 'OD1' })]);
    await api.POST('/orders', { params: { header: { 'X-Merchant-ID': '99999999', 'Idempotency-Key': 'mine' } }, body: { amount: '1.00' } });
    expect(requests[0]!.headers.get('x-merchant-id')).toBe('99999999');
    expect(requests[0]!.headers.get('idempotency-key')).toBe('mine');
  });

  it('omits X-Merchant-ID when not configured', async () => {
    const { api, requests } = setup([json(200, { count: 0 })], { merchantId: undefined });
    await api.GET('/orders');
    expect(requests[0]!.headers.has('x-merchant-id')).toBe(false);
  });

  it('validates options', () => {
    const base = { baseUrl: 'https://x', clientId: 'a', clientSecret: 'b' };
    expect(() => createTransport<paths>({ ...base, clientSecret: '' })).toThrow(/clientSecret/);
    expect(() => createTransport<paths>({ ...base, maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => createTransport<paths>({ ...base, maxRetries: 1.5 })).toThrow(/maxRetries/);
  });
});

describe('retries', () => {
  it('reuses the same Idempotency-Key and body across retries of one POST (503, 409 in flight, then 201)', async () => {
    const { api, requests, sleep } = setup([
      json(503, envelope('ERR_INTERNAL_500')),
      json(409, envelope('ERR_IDEMPOTENCY_409')),
      json(201, { order_id: 'OD1' }),
    ]);
    const result = await toResult(api.POST('/orders', { body: { amount: '25.00' } }));
    expect(result.ok).toBe(true);
    expect(result.status).toBe(201);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers.get('idempotency-key')))).toEqual(new Set(['key-1']));
    expect(requests.every((r) => r.body === '{"amount":"25.00"}')).toBe(true);
    expect(sleep).toHaveBeenCalledTimes(2);
    // the next logical call gets a new key
    const { api: api2, requests: r2 } = setup([json(201, { order_id: 'OD2' }), json(201, { order_id: 'OD3' })]);
    await api2.POST('/orders', { body: { amount: '1.00' } });
    await api2.POST('/orders', { body: { amount: '1.00' } });
    expect(r2.map((r) => r.headers.get('idempotency-key'))).toEqual(['key-1', 'key-2']);
  });

  it('honours Retry-After (delta-seconds) on 429', async () => {
    const { api, sleep, requests } = setup([json(429, envelope('ERR_RATE_429'), { 'Retry-After': '7' }), json(200, { count: 3 })]);
    const result = await toResult(api.GET('/orders'));
    expect(result.ok && result.data.count).toBe(3);
    expect(requests).toHaveLength(2);
    expect(sleep.mock.calls).toEqual([[7000]]);
  });

  it('honours Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('does not wait for a Retry-After beyond 60 s: returns the 429 to the caller', async () => {
    const { api, sleep, requests } = setup([json(429, envelope('ERR_RATE_429'), { 'Retry-After': '3600' })]);
    const result = await toResult(api.GET('/orders'));
    expect(result.ok).toBe(false);
    expect(result.status).toBe(429);
    expect(requests).toHaveLength(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('uses exponential backoff with jitter when there is no Retry-After, then gives up after maxRetries', async () => {
    const { api, sleep, requests } = setup([
      json(500, envelope('ERR_INTERNAL_500')),
      json(502, 'bad gateway'),
      json(503, envelope('ERR_INTERNAL_500')),
    ]);
    const result = await toResult(api.GET('/orders'));
    expect(requests).toHaveLength(3); // 1 + maxRetries (2)
    expect(result.ok).toBe(false);
    expect(result.status).toBe(503);
    const [first, second] = sleep.mock.calls.map(([ms]) => ms);
    expect(first).toBeGreaterThanOrEqual(250);
    expect(first).toBeLessThanOrEqual(500);
    expect(second).toBeGreaterThanOrEqual(500);
    expect(second).toBeLessThanOrEqual(1000);
    expect(backoffDelay(10, () => 1)).toBe(8000);
    expect(backoffDelay(0, () => 0)).toBe(250);
  });

  it('retries network errors of idempotent requests and rethrows after the last attempt', async () => {
    const ok = setup([new TypeError('fetch failed'), json(200, { count: 1 })]);
    expect((await toResult(ok.api.GET('/orders'))).ok).toBe(true);
    expect(ok.requests).toHaveLength(2);

    const bad = setup([new TypeError('fetch failed'), new TypeError('fetch failed'), new TypeError('fetch failed')]);
    await expect(bad.api.GET('/orders')).rejects.toThrow('fetch failed');
    expect(bad.requests).toHaveLength(3);
  });

  it('retries a POST after a network error with the same key', async () => {
    const { api, requests } = setup([new TypeError('socket hang up'), json(201, { order_id: 'OD1' })]);
    expect((await toResult(api.POST('/orders', { body: { amount: '1.00' } }))).ok).toBe(true);
    expect(requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['key-1', 'key-1']);
  });

  it('does not retry non-idempotent PATCH, other 409s, or 4xx', async () => {
    const patch = setup([json(503, envelope('ERR_INTERNAL_500'))]);
    await patch.api.PATCH('/orders', { body: { amount: '1.00' } });
    expect(patch.requests).toHaveLength(1);
    expect(patch.requests[0]!.headers.has('idempotency-key')).toBe(false);

    const conflict = setup([json(409, envelope('ERR_ORDER_409', 'reference_id reused'))]);
    const r = await toResult(conflict.api.POST('/orders', { body: { amount: '1.00' } }));
    expect(conflict.requests).toHaveLength(1);
    expect(!r.ok && r.error.error.code).toBe('ERR_ORDER_409');
    if (!r.ok) expectTypeOf(r.error.error.code).toEqualTypeOf<'ERR_ORDER_409' | 'ERR_IDEMPOTENCY_409' | 'ERR_UNEXPECTED_RESPONSE'>();
    else expectTypeOf(r.data).toEqualTypeOf<{ order_id: string }>();

    const invalid = setup([json(400, envelope('ERR_VALIDATION_400'))]);
    await invalid.api.GET('/orders');
    expect(invalid.requests).toHaveLength(1);
  });

  it('maxRetries: 0 disables retries', async () => {
    const { api, requests } = setup([json(503, envelope('ERR_INTERNAL_500'))], { maxRetries: 0 });
    await api.GET('/orders');
    expect(requests).toHaveLength(1);
  });
});

describe('createTransport with the default fetch', () => {
  it('sends the Request openapi-fetch built, and re-sends the same body and key on a retry', async () => {
    const calls: { url: string; method: string; headers: Headers; body: string }[] = [];
    const responses = [json(503, envelope('ERR_INTERNAL_500')), json(201, { order_id: 'OD1' }), json(200, { count: 3 })];
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
      const request = input as Request;
      expect(request).toBeInstanceOf(Request);
      calls.push({ url: request.url, method: request.method, headers: request.headers, body: await request.text() });
      return responses.shift()!;
    });
    try {
      const api = createTransport<paths>({
        baseUrl: 'https://api.test/v1',
        clientId: 'ck_test_abc',
        clientSecret: 'cs_secret',
        merchantId: '12345678',
        sleep: async () => undefined,
        idempotencyKey: () => 'key-fixed',
      });
      const created = await api.POST('/orders', { body: { amount: '10.00' } });
      expect(created.data).toEqual({ order_id: 'OD1' });
      const listed = await api.GET('/orders', { params: { query: { page: 2 }, header: { 'X-Merchant-ID': '99999999' } } });
      expect(listed.data).toEqual({ count: 3 });
    } finally {
      spy.mockRestore();
    }
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST https://api.test/v1/orders',
      'POST https://api.test/v1/orders',
      'GET https://api.test/v1/orders?page=2',
    ]);
    for (const c of calls.slice(0, 2)) {
      expect(c.body).toBe('{"amount":"10.00"}');
      expect(c.headers.get('idempotency-key')).toBe('key-fixed');
      expect(c.headers.get('content-type')).toBe('application/json');
    }
    for (const c of calls) {
      expect(c.headers.get('x-client-id')).toBe('ck_test_abc');
      expect(c.headers.get('x-client-secret')).toBe('cs_secret');
      expect(c.headers.get('x-paygate-client')).toMatch(/^paygate-client-ts\/0\.1\.0/);
    }
    expect(calls[2]!.headers.get('x-merchant-id')).toBe('99999999');
    expect(calls[2]!.headers.has('idempotency-key')).toBe(false);
  });

  it('middleware registered with use() or given to the call sees the Request, and its header change is sent', async () => {
    const seen: Request[] = [];
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
      seen.push(input as Request);
      return json(200, { count: 1 });
    });
    try {
      const api = createTransport<paths>({
        baseUrl: 'https://api.test/v1',
        clientId: 'ck',
        clientSecret: 'cs',
        sleep: async () => undefined,
      });
      const mw: Middleware = {
        onRequest({ request }) {
          request.headers.set('X-Trace', 't-1');
          return request;
        },
      };
      expect((await api.GET('/orders', { middleware: [mw] })).data).toEqual({ count: 1 });
      api.use(mw);
      expect((await api.GET('/orders')).data).toEqual({ count: 1 });
    } finally {
      spy.mockRestore();
    }
    expect(seen.map((r) => r.headers.get('x-trace'))).toEqual(['t-1', 't-1']);
  });
});
