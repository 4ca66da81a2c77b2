import type { AddressInfo } from 'node:net';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createApp } from './app.js';
import type { CreateAppOptions } from './runtime/app.js';
import type { Handlers } from './generated/handlers.gen.js';
import { operations } from '@paygate/contract';
import { HttpError } from './runtime/errors.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('createApp on the canonical spec', () => {
  it('boots from the pre-bundled document and answers through the validator and the error mapper', async () => {
    const called: string[] = [];
    const handlers = new Proxy({} as Handlers, {
      get: (_target, operationId: string) => async () => {
        called.push(operationId);
        throw new HttpError(501, 'ERR_INTERNAL_500', 'not implemented in this test');
      },
    });
    const app = createApp({ handlers, authenticate: () => ({ id: 'test' }) });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(operations.length).toBeGreaterThan(10);
      const missing = await fetch(`${base}/definitely/not/a/route`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ success: false, error: { code: 'ERR_REQUEST_404', message: 'No such route' } });

      const create = operations.find(
        (op) => op.method === 'post' && (op.requestMediaTypes as readonly string[]).includes('application/json'),
      )!;
      const path = create.path.replace(/\{[^}]+\}/g, '1');
      const invalid = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(invalid.status).toBe(400);
      const body = (await invalid.json()) as { error: { code: string; details?: Record<string, string> } };
      expect(body.error.code).toBe('ERR_VALIDATION_400');
      expect(Object.keys(body.error.details ?? {}).length).toBeGreaterThan(0);
      expect(called).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("createApp passes notImplemented: 'respond' through (D218)", () => {
  it('starts with some handlers, the others 501 in the envelope; the handlers map is Partial only in that mode', async () => {
    const handlers: Partial<Handlers> = {
      listMerchants: async () => {
        throw new HttpError(404, 'ERR_MERCHANT_404', 'No merchant');
      },
    };
    const app = createApp({ handlers, notImplemented: 'respond', authenticate: () => ({ id: 'test' }), logger: silent });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const list = operations.find(
        (op) => op.method === 'get' && op.security.length > 0 && !op.path.includes('{') && op.operationId !== 'listMerchants',
      )!;
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${list.path}`);
      expect(answer.status).toBe(501);
      expect(await answer.json()).toEqual({
        success: false,
        error: { code: 'not_implemented', message: `${list.operationId} is not implemented yet` },
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(() => createApp({ handlers: handlers as Handlers, authenticate: () => ({}), logger: silent })).toThrow(
      /missing handler\(s\) for .*notImplemented: 'respond'/s,
    );
    expectTypeOf<CreateAppOptions<Handlers>>()
      .extract<{ notImplemented: 'respond' }>()
      .toHaveProperty('handlers')
      .toEqualTypeOf<Partial<Handlers>>();
    expectTypeOf<CreateAppOptions<Handlers>>()
      .exclude<{ notImplemented: 'respond' }>()
      .toHaveProperty('handlers')
      .toEqualTypeOf<Handlers>();
    // @ts-expect-error without notImplemented: 'respond' every operation needs a handler
    const strict: Parameters<typeof createApp>[0] = { handlers };
    expect(strict).toBeDefined();
  });
});
