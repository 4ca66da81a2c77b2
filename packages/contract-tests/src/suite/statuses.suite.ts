/**
 * Status-code cells, driven by the spec: for every operation and every error status it declares, a request that
 * must produce exactly that status (with the error envelope, validated by the conformance layer):
 * 400 (schema violation), 401, 403, 404, 409 (Idempotency-Key in flight), 413, 415, 422 (Idempotency-Key reused),
 * 429 (own gateway with a limit of 1 request per window), 500 (database fault injected into one request) and 503 (a
 * connection lost, or the database refusing connections, injected into one request).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTargets, isRemote, type Faults } from '../support/gateway.js';
import { openPaygate, type Paygate } from '../support/paygate.js';
import { MISSING_IDS, multipart, prepareWorld, validRequest, type World } from '../support/requests.js';
import { fillPath, operations, type OperationSpec } from '../support/spec.js';
import { useCoverage } from './coverage.js';

useCoverage('statuses');

const declaring = (status: string) => operations.filter((o) => o.responses.has(status));
const hasIdempotencyKey = (o: OperationSpec) => o.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
const jsonBodyOf = (o: OperationSpec) => o.requestBody?.content.has('application/json') ?? false;

/** A path where the first path parameter breaks its schema. */
function badPath(op: OperationSpec): string | undefined {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  if (pathParams.length === 0) return undefined;
  const params: Record<string, string> = {};
  for (const p of pathParams) {
    const max = typeof p.schema['maxLength'] === 'number' ? p.schema['maxLength'] : undefined;
    params[p.name] = typeof p.schema['pattern'] === 'string' ? 'not-an-id!' : 'x'.repeat((max ?? 64) + 1);
  }
  return fillPath(op.path, params);
}

function docFields(op: OperationSpec): Record<string, string> {
  return op.operationId === 'uploadOrderDocument' ? { document_type: 'invoice', identifier: 'INV-1' } : { document_type: 'INVOICE' };
}

function expectEnvelope(res: { json: unknown; error: unknown }, code?: RegExp): void {
  expect((res.json as { success?: unknown }).success).toBe(false);
  expect(res.json).not.toHaveProperty('data');
  if (code) expect((res.error as { code: string }).code).toMatch(code);
}

describe.each(gatewayTargets())('declared statuses [%s]', (target) => {
  let pg: Paygate;
  let w: World;

  beforeAll(async () => {
    pg = await openPaygate(target);
    w = await prepareWorld(pg);
  });
  afterAll(() => pg?.close());

  it('the other trailing-slash spelling of every operation path is 404 ERR_REQUEST_404, before credentials or body are looked at (B9)', async () => {
    for (const op of operations) {
      if (op.sandboxOnly && !pg.gw.sandbox) continue;
      const r = await validRequest(pg, w, op);
      const [pathname, query] = r.path.split('?') as [string, string | undefined];
      const other = (pathname.endsWith('/') ? pathname.slice(0, -1) : `${pathname}/`) + (query === undefined ? '' : `?${query}`);
      const res = await pg.call(r.method, other, r.who, r.req);
      expect(res.status, `${r.method} ${other} (${op.operationId}): ${res.text.slice(0, 200)}`).toBe(404);
      expectEnvelope(res, /^ERR_REQUEST_404$/);
    }
  });

  it('every operation answers its valid request with a declared 2xx (positive_data_acceptance)', async () => {
    for (const op of operations) {
      if (op.sandboxOnly && !pg.gw.sandbox) continue;
      const r = await validRequest(pg, w, op);
      const res = await pg.call(r.method, r.path, r.who, r.req);
      expect(res.status, `${op.operationId}: ${res.text.slice(0, 300)}`).toBeLessThan(300);
      if (op.secured && res.json !== undefined) expect((res.json as { success?: boolean }).success ?? true).toBe(true);
    }
  });

  it.each(declaring('400').map((o) => [o.operationId, o] as const))('400 %s: schema violation names the field', async (_id, op) => {
    const r = await validRequest(pg, w, op);
    // A checkout session id is a credential: a malformed one is 401 ERR_AUTH_000 (checked below), not a 400.
    const bp = op.path.includes('{session_id}') ? undefined : badPath(op);
    let res;
    if (bp) {
      res = await pg.call(r.method, bp, r.who, r.req);
    } else if (op.parameters.some((p) => p.name === 'page')) {
      res = await pg.call(r.method, r.path, r.who, { query: { page: 0 } });
      expect(res.error?.details).toHaveProperty('page');
    } else if (op.method === 'get' && op.parameters.some((p) => p.in === 'query' && typeof p.schema['pattern'] === 'string')) {
      const param = op.parameters.find((p) => p.in === 'query' && typeof p.schema['pattern'] === 'string')!;
      res = await pg.call(r.method, r.path, r.who, { query: { [param.name]: 'not-an-id!' } });
      expect(res.error?.details).toHaveProperty(param.name);
    } else if (jsonBodyOf(op)) {
      res = await pg.call(r.method, r.path, r.who, { json: { unexpected_field: true } });
      expect(Object.keys(res.error?.details ?? {}).length).toBeGreaterThan(0);
    } else if (op.method === 'get') {
      res = await pg.call(r.method, r.path, r.who, { query: { unexpected_parameter: 1 } });
      expect(res.error?.details).toHaveProperty('unexpected_parameter');
    } else {
      res = await pg.call(r.method, r.path, r.who, { body: new URLSearchParams({ outcome: 'explode' }) });
      expect(res.error?.details).toHaveProperty('outcome');
    }
    expect(res.status, res.text).toBe(400);
    expectEnvelope(res, /^ERR_VALIDATION_400$/);
    // D41: one message for every validation failure, whoever detects it; `details` says what is wrong
    expect((res.error as { message: string }).message).toBe('Request validation failed');
  });

  it.each(declaring('401').map((o) => [o.operationId, o] as const))('401 %s: no / wrong credentials or dead session', async (_id, op) => {
    const r = await validRequest(pg, w, op);
    if (op.secured) {
      const none = await pg.call(r.method, r.path, undefined, r.req);
      expect(none.status, none.text).toBe(401);
      expectEnvelope(none, /^ERR_AUTH_000$/);
      const wrong = await pg.call(r.method, r.path, { clientId: pg.partner.clientId, clientSecret: `${pg.partner.clientSecret}x` }, r.req);
      expect(wrong.status, wrong.text).toBe(401);
      expectEnvelope(wrong, /^ERR_AUTH_000$/);
    } else {
      const res = await pg.call(r.method, fillPath(op.path, { session_id: MISSING_IDS['session_id']! }), undefined, r.req);
      expect(res.status, res.text).toBe(401);
      expectEnvelope(res, /^ERR_AUTH_000$/);
      expect(res.error?.details).toHaveProperty('session_id');
      // malformed, of any length (the seed: ERR_AUTH_000 with details.session_id, never a 400 telling ids apart)
      for (const bad of ['not-a-session', `session_${'a'.repeat(300)}`, '%E0%A4%A']) {
        const malformed = await pg.call(r.method, op.path.replace('{session_id}', bad), undefined, r.req);
        expect(malformed.status, malformed.text).toBe(401);
        expect(malformed.error).toEqual({ code: 'ERR_AUTH_000', message: 'Missing credentials', details: { session_id: 'is malformed' } });
      }
    }
  });

  it.each(declaring('403').map((o) => [o.operationId, o] as const))(
    '403 %s: merchant credentials on a partner-only operation',
    async (_id, op) => {
      const r = await validRequest(pg, w, op);
      const res = await pg.call(r.method, r.path, w.m.credentials, r.req);
      expect(res.status, res.text).toBe(403);
      expectEnvelope(res, /^ERR_AUTH_403$/);
    },
  );

  it.each(declaring('404').map((o) => [o.operationId, o] as const))('404 %s: well-formed id that does not exist', async (_id, op) => {
    const r = await validRequest(pg, w, op);
    let res;
    if (op.operationId === 'createOrder') {
      res = await pg.call(r.method, r.path, pg.partner, { ...r.req, headers: { 'x-merchant-id': MISSING_IDS['merchant_id']! } });
    } else if (op.operationId === 'createRefund') {
      res = await pg.call(r.method, r.path, r.who, { json: { payment_id: MISSING_IDS['payment_id'], refund_amount: '1.00' } });
    } else if (op.operationId === 'runSettlements') {
      res = await pg.call(r.method, r.path, r.who, { json: { merchant_id: MISSING_IDS['merchant_id'] } });
    } else if (op.operationId === 'advanceSandboxClock') {
      res = await pg.call(r.method, r.path, r.who, { json: { seconds: 1, merchant_id: MISSING_IDS['merchant_id'] } });
    } else if (op.operationId === 'getSandboxClock') {
      res = await pg.call(r.method, r.path, r.who, { query: { merchant_id: MISSING_IDS['merchant_id']! } });
    } else {
      const params = Object.fromEntries(
        op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, MISSING_IDS[p.name] ?? 'missing']),
      );
      res = await pg.call(r.method, fillPath(op.path, params), r.who, r.req);
    }
    expect(res.status, res.text).toBe(404);
    expectEnvelope(res, /^ERR_[A-Z]+_404$/);
  });

  it.each(declaring('413').map((o) => [o.operationId, o] as const))('413 %s: body over the limit', async (_id, op) => {
    const r = await validRequest(pg, w, op);
    const media = op.requestBody ? [...op.requestBody.content.keys()][0] : 'application/json';
    let req;
    if (media === 'multipart/form-data') {
      const big = new Blob([Buffer.from('%PDF-1.4\n'), new Uint8Array(5 * 1024 * 1024 + 10)], { type: 'application/pdf' });
      req = { body: multipart(docFields(op), big) };
    } else if (media === 'application/x-www-form-urlencoded') {
      req = { body: new URLSearchParams({ outcome: 'success', pad: 'x'.repeat(1024 * 1024 + 10) }) };
    } else {
      req = { json: { pad: 'x'.repeat(1024 * 1024 + 10) } };
    }
    const res = await pg.call(r.method, r.path, r.who, req);
    expect(res.status, res.text.slice(0, 300)).toBe(413);
    expectEnvelope(res, /^ERR_REQUEST_413$/);
    // D42: a 413 names the part that is too large, the file of an upload or else the body
    expect(res.error?.details, res.text.slice(0, 300)).toHaveProperty(media === 'multipart/form-data' ? 'file' : 'body');
  });

  it.each(
    declaring('415')
      .filter((o) => o.requestBody)
      .map((o) => [o.operationId, o] as const),
  )('415 %s: unsupported content type', async (_id, op) => {
    const r = await validRequest(pg, w, op);
    const media = op.requestBody ? [...op.requestBody.content.keys()][0] : 'application/json';
    let res;
    if (media === 'multipart/form-data') {
      const text = new Blob(['just some text, not a document'], { type: 'text/plain' });
      res = await pg.call(r.method, r.path, r.who, { body: multipart(docFields(op), text, 'notes.txt') });
    } else {
      res = await pg.call(r.method, r.path, r.who, { body: '<xml>not json</xml>', headers: { 'content-type': 'application/xml' } });
    }
    expect(res.status, res.text).toBe(415);
    expectEnvelope(res, /^ERR_REQUEST_415$/);
  });

  it.each(
    declaring('422')
      .filter(hasIdempotencyKey)
      .map((o) => [o.operationId, o] as const),
  )('422 %s: Idempotency-Key reused with another request', async (_id, op) => {
    const key = randomUUID();
    const a = await validRequest(pg, w, op, 0);
    const first = await pg.call(a.method, a.path, a.who, { ...a.req, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBeLessThan(500);
    const b = await validRequest(pg, w, op, 1);
    const res = await pg.call(b.method, b.path, b.who, { ...b.req, headers: { 'idempotency-key': key } });
    expect(res.status, res.text).toBe(422);
    expectEnvelope(res, /^ERR_IDEMPOTENCY_422$/);
  });

  if (!isRemote())
    describe('in-process only', () => {
      it.each(
        declaring('409')
          .filter(hasIdempotencyKey)
          .map((o) => [o.operationId, o] as const),
      )('409 %s: same Idempotency-Key while the first request is in flight', async (_id, op) => {
        const faults = pg.gw.faults as Faults;
        const key = randomUUID();
        const token = randomUUID();
        const a = await validRequest(pg, w, op, 0);
        const firstP = pg.call(a.method, a.path, a.who, { ...a.req, headers: { 'idempotency-key': key, [faults.HOLD_HEADER]: token } });
        const early = await Promise.race([faults.held(token).then(() => undefined), firstP]);
        expect(early, `the first request finished without reaching its handler: ${early?.text ?? ''}`).toBeUndefined();
        const second = await pg.call(a.method, a.path, a.who, { ...a.req, headers: { 'idempotency-key': key } });
        faults.release(token);
        const first = await firstP;
        expect(second.status, second.text).toBe(409);
        expectEnvelope(second, /^ERR_IDEMPOTENCY_409$/);
        expect(first.status, first.text).toBeLessThan(500);
      });

      // The SDK is a constant script that reads no storage: no database fault reaches it (see coverage.ts).
      const storageBacked = (o: { operationId: string }) => o.operationId !== 'getCheckoutSdk';
      it.each(
        declaring('500')
          .filter(storageBacked)
          .map((o) => [o.operationId, o] as const),
      )('500 %s: database failure -> ERR_INTERNAL_500, nothing disclosed', async (_id, op) => {
        const faults = pg.gw.faults as Faults;
        const r = await validRequest(pg, w, op);
        const res = await pg.call(r.method, r.path, r.who, { ...r.req, headers: { [faults.FAULT_HEADER]: 'db' }, allowServerError: true });
        expect(res.status, res.text).toBe(500);
        expectEnvelope(res, /^ERR_INTERNAL_500$/);
        expect(res.text).not.toMatch(/injected|stack|at \//);
        // still healthy afterwards
        const again = await pg.call(r.method === 'GET' ? r.method : 'GET', '/sdk/checkout.js', undefined);
        expect(again.status).toBe(200);
      });

      // Infrastructure failures are 503 ERR_UNAVAILABLE_503 with Retry-After (D91 infrastructure failures named in one place: 503; D92 Retry-After 1 on every 503): a connection lost while the
      // request runs, and the database refusing connections from the first statement on, credential checks included
      // (the credential cache is flushed so the check must reach the database): never 401, never 500.
      const expectUnavailable = (res: { status: number; text: string; headers: Headers; json: unknown; error: unknown }) => {
        expect(res.status, res.text).toBe(503);
        expectEnvelope(res, /^ERR_UNAVAILABLE_503$/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.text).not.toMatch(/ECONNREFUSED|terminated|stack|at \//);
      };
      it.each(
        declaring('503')
          .filter(storageBacked)
          .map((o) => [o.operationId, o] as const),
      )('503 %s: connection lost mid-request -> ERR_UNAVAILABLE_503 with Retry-After', async (_id, op) => {
        const faults = pg.gw.faults as Faults;
        const r = await validRequest(pg, w, op);
        const res = await pg.call(r.method, r.path, r.who, {
          ...r.req,
          headers: { [faults.FAULT_HEADER]: 'db-lost' },
          allowServerError: true,
        });
        expectUnavailable(res);
      });
      const pageOn503 = (o: OperationSpec) => o.responses.get('503')?.content.has('text/html') ?? false;
      it.each(
        declaring('503')
          .filter(pageOn503)
          .map((o) => [o.operationId, o] as const),
      )('503 %s: a browser asking for HTML gets the declared page, with Retry-After', async (_id, op) => {
        const faults = pg.gw.faults as Faults;
        const r = await validRequest(pg, w, op);
        const headers = { [faults.FAULT_HEADER]: 'db-lost', accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
        const res = await pg.call(r.method, r.path, r.who, { ...r.req, headers, allowServerError: true });
        expect(res.status, res.text).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.text).toMatch(/reload/i);
        expect(res.text).not.toMatch(/terminated|stack|at \//);
      });
      it.each(
        declaring('503')
          .filter(storageBacked)
          .map((o) => [o.operationId, o] as const),
      )('503 %s: database refusing connections, credential check included -> 503, not 401', async (_id, op) => {
        const faults = pg.gw.faults as Faults;
        const r = await validRequest(pg, w, op);
        pg.gw.runtime?.credentials.flush();
        const res = await pg.call(r.method, r.path, r.who, {
          ...r.req,
          headers: { [faults.FAULT_HEADER]: 'db-down' },
          allowServerError: true,
        });
        expectUnavailable(res);
        // the same credential works again once the database answers
        const again = await pg.call(r.method, r.path, r.who, r.req);
        expect(again.status, again.text).not.toBe(401);
        expect(again.status, again.text).toBeLessThan(500);
      });
    });
});

if (!isRemote())
  describe('429 rate limit (own gateway, 1 request per window)', () => {
    let pg: Paygate;
    let limited: Paygate;
    let w: World;
    beforeAll(async () => {
      pg = await openPaygate('pglite');
      w = await prepareWorld(pg);
    });
    afterAll(async () => {
      await limited?.close();
      await pg?.close();
    });

    it.each(declaring('429').map((o) => [o.operationId, o] as const))(
      '429 %s with Retry-After and RateLimit-* headers',
      async (_id, op) => {
        // A fresh limited gateway per operation would be slow; one gateway, exhausted once per credential / client IP.
        limited ??= await openPaygate('pglite', { rateLimit: { limit: 1, windowSeconds: 3600 } });
        const r = await validRequest(pg, w, op);
        const who = r.who ? limited.partner : undefined;
        await limited.call('GET', r.who ? '/partners/merchants/' : '/sdk/checkout.js', who).catch(() => undefined);
        const res = await limited.call(r.method, r.path, who, r.req);
        expect(res.status, res.text).toBe(429);
        expectEnvelope(res, /^ERR_RATE_429$/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      },
    );
  });
