import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import type { Handlers } from '../../../../test/fixtures/mini/generated/server/handlers.gen.js';
import { operations, securitySchemes } from '../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { requestValidators } from '../../../../test/fixtures/mini/generated/server/request-validators.gen.js';
import { createApiApp } from './app.js';
import { HttpError } from './errors.js';
import type { Logger } from './types.js';

interface Principal {
  clientId: string;
}

const order = { order_id: 'OD0000000000000001', amount: 10.5, currency: 'INR', status: 'payment_pending' as const };
const logger: Logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
const seen: { principal?: Principal; upload?: unknown; merchant?: string } = {};

const handlers: Handlers<Principal> = {
  async createOrder(req, ctx) {
    seen.principal = ctx.principal;
    seen.merchant = req.headers['x-merchant-id'];
    if (req.body.reference_id === 'boom') throw new Error('database password is hunter2');
    if (req.body.reference_id === 'off-spec') {
      // A handler that lies to the compiler: caught by response validation.
      return { status: 201, body: { success: true, message: 'x', data: { order_id: 1 } } as never, headers: { Location: '/x' } };
    }
    return { status: 201, body: { success: true, message: 'created', data: order }, headers: { Location: `/pg/orders/${order.order_id}` } };
  },
  async getOrder(req) {
    if (req.params.order_id !== order.order_id) throw new HttpError(404, 'ERR_ORDER_404', 'Order not found', { order_id: 'no such order' });
    return { status: 200, body: { success: true, message: 'ok', data: order } };
  },
  async uploadOrderDocument(req) {
    seen.upload = {
      type: req.body.document_type,
      name: req.body.file.originalname,
      size: req.body.file.size,
      mimetype: req.body.file.mimetype,
    };
    return { status: 200, body: { success: true, message: 'attached', data: order } };
  },
  async listRefunds(req) {
    return {
      status: 200,
      body: { count: 0, page: req.query.page ?? 1, page_size: req.query.page_size ?? 250, next: null, previous: null, results: [] },
    };
  },
  async listMerchants() {
    return {
      status: 200,
      body: { success: true, message: 'ok', data: { count: 0, page: 1, page_size: 250, next: null, previous: null, results: [] } },
    };
  },
  async getHealth() {
    return { status: 204 };
  },
};

let server: Server;
let base: string;

const auth = { 'x-client-id': 'ck_test_1', 'x-client-secret': 'cs_1' };
const validOrder = { amount: '10.50', currency: 'INR', reference_id: 'ref-1', buyer: { name: 'A', email: 'a@example.com' } };

async function call(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string>; json?: unknown } = {}) {
  const headers: Record<string, string> = { ...auth, ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body:
      text.length > 0
        ? (JSON.parse(text) as { success: boolean; error: { code: string; message: string; details?: Record<string, string> } })
        : undefined,
  };
}

describe('createApiApp over real HTTP (mini fixture)', () => {
  beforeAll(async () => {
    const app = createApiApp<Handlers<Principal>, Principal>(
      { apiDocument, operations, securitySchemes, requestValidators },
      {
        handlers,
        logger,
        requestLogFields: (req) => ({ req_id: req.headers['x-request-id'] }),
        validateResponses: true,
        bodyLimit: '2kb',
        uploadLimits: { fileSize: 1024 },
        authenticate: ({ req, requirements, schemes }) => {
          expect(requirements).toEqual([
            [
              { scheme: 'ClientId', scopes: [] },
              { scheme: 'ClientSecret', scopes: [] },
            ],
          ]);
          const idHeader = schemes.ClientId!.name!.toLowerCase();
          const id = req.headers[idHeader];
          if (id !== 'ck_test_1' || req.headers['x-client-secret'] !== 'cs_1') throw new Error('bad credentials');
          return { clientId: id };
        },
      },
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('routes a valid request to the typed handler with the principal and lower-cased headers', async () => {
    const res = await call('POST', '/pg/orders/', { json: validOrder, headers: { 'X-Merchant-ID': '12345678' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/pg/orders/OD0000000000000001');
    expect(res.body).toMatchObject({ success: true, data: order });
    expect(seen.principal).toEqual({ clientId: 'ck_test_1' });
    expect(seen.merchant).toBe('12345678');
  });

  it('reports every invalid body field, header and query parameter by its JSON path', async () => {
    const res = await call('POST', '/pg/orders/', {
      json: { amount: '10', currency: 'inr', reference_id: 'r', buyer: { name: 'A', email: 'nope' }, extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body!.error.code).toBe('ERR_VALIDATION_400');
    expect(Object.keys(res.body!.error.details!).sort()).toEqual(['amount', 'buyer.email', 'currency', 'extra', 'x-merchant-id']);
    expect(res.body!.error.details!['buyer.email']).toMatch(/email/);

    const list = await call('GET', '/pg/refunds?page_size=999&page=0');
    expect(list.status).toBe(400);
    expect(Object.keys(list.body!.error.details!).sort()).toEqual(['page', 'page_size']);
  });

  it('coerces query parameters to their schema types', async () => {
    const res = await call('GET', '/pg/refunds?page=2&page_size=10');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 2, page_size: 10 });
  });

  it('answers malformed JSON with 400, a too-large body with 413 and a wrong content type with 415', async () => {
    const malformed = await call('POST', '/pg/orders/', {
      body: '{"amount": ',
      headers: { 'content-type': 'application/json', 'X-Merchant-ID': '12345678' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body!.error).toEqual({
      code: 'ERR_VALIDATION_400',
      message: 'Request validation failed',
      details: { body: 'is not valid JSON' },
    });

    const large = await call('POST', '/pg/orders/', {
      json: { ...validOrder, reference_id: 'x'.repeat(4000) },
      headers: { 'X-Merchant-ID': '12345678' },
    });
    expect(large.status).toBe(413);
    expect(large.body!.error).toEqual({
      code: 'ERR_REQUEST_413',
      message: 'Request body too large',
      details: { body: expect.stringMatching(/^must be at most \d+ bytes$/) },
    });

    const xml = await call('POST', '/pg/orders/', {
      body: '<order/>',
      headers: { 'content-type': 'application/xml', 'X-Merchant-ID': '12345678' },
    });
    expect(xml.status).toBe(415);
    expect(xml.body!.error).toEqual({
      code: 'ERR_REQUEST_415',
      message: 'Unsupported content type',
      details: { 'content-type': 'must be one of: application/json' },
    });
  });

  // Hostile input classes (issue 13): each is a declared 4xx whose details name what to fix, never a 5xx.
  it.each<[string, { method: string; path: string; body?: BodyInit; headers?: Record<string, string> }, number, Record<string, unknown>]>([
    [
      'a `__proto__` key',
      {
        method: 'POST',
        path: '/pg/orders/',
        body: '{"__proto__":{"admin":true},"amount":"10.50","currency":"INR","reference_id":"r","buyer":{"name":"A","email":"a@example.com"}}',
      },
      400,
      Object.fromEntries([['__proto__', 'must NOT have additional properties']]),
    ],
    [
      'broken percent-encoding in a path parameter',
      { method: 'GET', path: '/pg/orders/%E0%A4%A' },
      400,
      { order_id: expect.stringMatching(/malformed percent-encoding/) },
    ],
    [
      'a gzip Content-Encoding on a plain body',
      { method: 'POST', path: '/pg/orders/', body: JSON.stringify({ amount: '10.50' }), headers: { 'content-encoding': 'gzip' } },
      400,
      { 'content-encoding': expect.stringMatching(/not valid data in the declared encoding/) },
    ],
    [
      'an unknown Content-Encoding',
      { method: 'POST', path: '/pg/orders/', body: JSON.stringify({ amount: '10.50' }), headers: { 'content-encoding': 'compress' } },
      415,
      { 'content-encoding': 'must be identity, gzip, deflate or br' },
    ],
    [
      'an unsupported charset',
      { method: 'POST', path: '/pg/orders/', body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
      415,
      { 'content-type': 'charset must be utf-8' },
    ],
  ])('%s: %d with details', async (_name, req, status, details) => {
    const res = await call(req.method, req.path, {
      ...(req.body !== undefined ? { body: req.body } : {}),
      headers: { 'content-type': 'application/json', 'X-Merchant-ID': '12345678', ...req.headers },
    });
    expect(res.status).toBe(status);
    expect(res.body!.success).toBe(false);
    expect(res.body!.error.details).toEqual(details);
  });

  it('accepts a body that really is gzip-encoded', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await call('POST', '/pg/orders/', {
      body: gzipSync(JSON.stringify(validOrder)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'X-Merchant-ID': '12345678' },
    });
    expect(res.status).toBe(201);
  });

  it('answers unknown routes with 404 and known paths with another method with 405, in the envelope', async () => {
    const missing = await call('GET', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: { code: 'ERR_REQUEST_404', message: 'No such route' } });
    const wrongMethod = await call('DELETE', '/pg/refunds');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body!.error.code).toBe('ERR_REQUEST_405');
  });

  it.each([
    ['GET', '/pg/refunds/', undefined],
    ['GET', '/PG/refunds', undefined],
    ['DELETE', '/pg/refunds/', undefined],
    ['POST', '/pg/orders', { json: {}, headers: { 'X-Merchant-ID': '12345678' } }],
  ] as const)('matches paths exactly as the spec spells them: %s %s is 404, before validation or 405', async (method, path, init) => {
    const res = await call(method, path, init);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'ERR_REQUEST_404', message: 'No such route' } });
  });

  it('rejects missing or bad credentials with 401 ERR_AUTH_000 before validating, and skips auth on public operations', async () => {
    const res = await fetch(`${base}/pg/orders/`, { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ success: false, error: { code: 'ERR_AUTH_000', message: 'Missing credentials' } });
    // the authenticate hook threw for credentials that were sent: told they are invalid, not missing (D219 invalid versus missing credentials)
    const refused = await fetch(`${base}/pg/orders/`, {
      method: 'POST',
      body: 'not json',
      headers: { 'content-type': 'application/json', 'x-client-id': 'ck_test_1', 'x-client-secret': 'wrong' },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ success: false, error: { code: 'ERR_AUTH_000', message: 'Invalid credentials' } });
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(204);
  });

  it('maps HttpError from a handler to its status, code and details', async () => {
    const res = await call('GET', '/pg/orders/OD0000000000000009');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'ERR_ORDER_404', message: 'Order not found', details: { order_id: 'no such order' } },
    });
  });

  it('turns an unexpected handler error into 500 ERR_INTERNAL_500 without leaking internals, and logs it', async () => {
    vi.mocked(logger.error).mockClear();
    const res = await call('POST', '/pg/orders/', {
      json: { ...validOrder, reference_id: 'boom' },
      headers: { 'X-Merchant-ID': '12345678', 'X-Request-Id': 'req-boom' },
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: { code: 'ERR_INTERNAL_500', message: 'Internal server error' } });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|at |\.ts/);
    // the app's requestLogFields are on the line (D165: the request id without an async context)
    expect(vi.mocked(logger.error).mock.calls[0]![0]).toMatchObject({ req_id: 'req-boom', operationId: 'createOrder' });
  });

  it('catches an off-spec handler response with response validation', async () => {
    vi.mocked(logger.error).mockClear();
    const res = await call('POST', '/pg/orders/', {
      json: { ...validOrder, reference_id: 'off-spec' },
      headers: { 'X-Merchant-ID': '12345678', 'X-Request-Id': 'req-off-spec' },
    });
    expect(res.status).toBe(500);
    expect(res.body!.error.code).toBe('ERR_INTERNAL_500');
    const logged = vi.mocked(logger.error).mock.calls[0]![0] as { err: { errors?: { path: string }[] }; req_id?: string };
    expect(logged.err.errors?.map((e) => e.path)).toContain('/response/data/order_id');
    expect(logged.req_id).toBe('req-off-spec');
  });

  it('parses multipart uploads into typed file and string fields, with size limits', async () => {
    const form = new FormData();
    form.append('document_type', 'invoice');
    form.append('file', new Blob([new Uint8Array([0x25, 0x50, 0x44, 0x46])], { type: 'application/pdf' }), 'invoice.pdf');
    const res = await call('POST', '/pg/orders/OD0000000000000001/documents/', { body: form });
    expect(res.status).toBe(200);
    expect(seen.upload).toEqual({ type: 'invoice', name: 'invoice.pdf', size: 4, mimetype: 'application/pdf' });

    const big = new FormData();
    big.append('document_type', 'invoice');
    big.append('file', new Blob([new Uint8Array(2048)], { type: 'application/pdf' }), 'big.pdf');
    const tooLarge = await call('POST', '/pg/orders/OD0000000000000001/documents/', { body: big });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body!.error.code).toBe('ERR_REQUEST_413');

    const missingFile = new FormData();
    missingFile.append('document_type', 'passport');
    const invalid = await call('POST', '/pg/orders/OD0000000000000001/documents/', { body: missingFile });
    expect(invalid.status).toBe(400);
    expect(Object.keys(invalid.body!.error.details!).sort()).toEqual(['document_type', 'file']);
  });
});

// D180: `onRequest` runs after the first steps and before `before`'s middleware and the operations, in the scaffold's
// own layer (with no `before`, first steps, onRequest and dispatch are ONE layer of Express's router)
describe.each([
  ['without before (one layer)', false],
  ['with before (its middleware after onRequest)', true],
] as const)('createApiApp onRequest, %s', (_name, withBefore) => {
  let app: ReturnType<typeof createApiApp<Handlers<Principal>, Principal>>;
  let onRequestServer: Server;
  let url: string;
  const trail: string[] = [];
  beforeAll(async () => {
    app = createApiApp<Handlers<Principal>, Principal>(
      { apiDocument, operations, securitySchemes, requestValidators },
      {
        handlers,
        logger,
        validateResponses: false,
        authenticate: () => ({ clientId: 'ck_test_1' }),
        onRequest: (req, res, next) => {
          trail.push(`onRequest ${req.path}`);
          res.setHeader('X-On-Request', 'yes');
          if (req.path === '/answered-here') res.status(200).json({ here: true });
          else if (req.path === '/fails-here') next(new HttpError(418, 'ERR_TEAPOT', 'no'));
          else if (req.path === '/later') setImmediate(next);
          else next();
        },
        ...(withBefore
          ? {
              before: (a) =>
                a.use((req, _res, next) => {
                  trail.push(`before ${req.path}`);
                  next();
                }),
            }
          : {}),
      },
    );
    onRequestServer = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => onRequestServer.once('listening', resolve));
    url = `http://127.0.0.1:${(onRequestServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => onRequestServer.close(() => resolve())));

  it('runs for every request, before the operation; may answer, fail or go on later', async () => {
    trail.length = 0;
    const read = await fetch(`${url}/pg/orders/${order.order_id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(read.headers.get('x-on-request')).toBe('yes');
    expect(((await read.json()) as { data: unknown }).data).toEqual(order);
    expect(trail).toEqual(
      withBefore
        ? [`onRequest /pg/orders/${order.order_id}`, `before /pg/orders/${order.order_id}`]
        : [`onRequest /pg/orders/${order.order_id}`],
    );

    const answered = await fetch(`${url}/answered-here`);
    expect([answered.status, await answered.json()]).toEqual([200, { here: true }]);
    const failed = await fetch(`${url}/fails-here`);
    expect(failed.status).toBe(418);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('ERR_TEAPOT');
    const unknown = await fetch(`${url}/later`);
    expect(unknown.status).toBe(404); // went on after a tick: no such route
    const wrongMethod = await fetch(`${url}/pg/orders/${order.order_id}`, { method: 'DELETE', headers: auth });
    expect(wrongMethod.status).toBe(405);
  });

  it(`puts ${withBefore ? "first steps with onRequest, before's middleware and the dispatch" : 'first steps, onRequest and the dispatch in one layer'} before the 404 and error layers`, () => {
    expect((app as unknown as { router: { stack: unknown[] } }).router.stack).toHaveLength(withBefore ? 5 : 3);
  });
});
