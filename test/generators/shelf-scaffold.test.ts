/**
 * Shelf (test/fixtures/shelf), a spec with none of Paygate's conventions, generated (golden files, compiled by the
 * typecheck) and served by the scaffold: its own `Error {code, message}` on every answer of the scaffold's own
 * (D119 scaffold shapes its answers from the spec), its bearer scheme through a per-scheme authenticator and the start-up refusal without one (D120 one authenticator per security scheme),
 * `expand[]` deepObject arrays (D117 deepObject arrays read as Stripe sends them), free-form `metadata` objects (D118 empty object schemas typed Record<string, unknown>), a `+` in its server URL under response
 * validation, and the default development logger naming the operation and the JSON pointer.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createApiApp, RenderedResponse, type DeclaredErrorResult, type HandlerHook } from '../../packages/server/src/runtime/app.js';
import { HttpError } from '../../packages/server/src/runtime/errors.js';
import type { Logger } from '../../packages/server/src/runtime/types.js';
import { apiDocument } from '../fixtures/shelf/generated/contract/api-document.gen.js';
import type { components } from '../fixtures/shelf/generated/contract/types.gen.js';
import { operations, securitySchemes } from '../fixtures/shelf/generated/contract/operations.gen.js';
import type { Handlers } from '../fixtures/shelf/generated/server/handlers.gen.js';
import { requestValidators } from '../fixtures/shelf/generated/server/request-validators.gen.js';

type Item = components['schemas']['Item'];
const spec = { apiDocument, operations, securitySchemes, requestValidators };
const book: Item = { kind: 'book', id: 'itm_00000001', title: 'Dune', metadata: { shelf: 3, tags: ['sf'] } };
const seen: { expand?: unknown; principal?: unknown } = {};

const handlers: Handlers<{ user: string }> = {
  getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
  listItems: async (req, ctx) => {
    seen.expand = req.query.expand;
    seen.principal = ctx.principal;
    return { status: 200, body: { items: [book], next_cursor: null } };
  },
  createItem: async (req) => {
    if (req.body.title === 'off-spec') return { status: 201, body: { kind: 'book', id: 42 } as unknown as Item };
    if (req.body.title === 'crash') throw new Error('database on fire');
    return { status: 201, body: { ...req.body, id: 'itm_00000002' } as Item, headers: { Location: '/items/itm_00000002' } };
  },
  getItem: async (req) => {
    if (req.params.item_id !== book.id) throw new HttpError(404, 'item_not_found', 'No such item');
    return { status: 200, body: book };
  },
  deleteItem: async () => ({ status: 204 }),
};

const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
let server: Server;
let base: string;

beforeAll(async () => {
  const app = createApiApp<Handlers<{ user: string }>, { user: string }>(spec, {
    handlers,
    logger,
    validateResponses: true,
    authenticators: { bearerAuth: ({ credential }) => (credential === 'tok_good' ? { user: 'ada' } : undefined) },
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const auth = { authorization: 'Bearer tok_good' };
async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(base + path, {
    method,
    headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

describe("Shelf served by the scaffold: its own error shape on the scaffold's own answers (D119)", () => {
  it.each([
    { name: 'validation 400', method: 'GET', path: '/items?limit=0', headers: auth, status: 400, code: 'invalid_request' },
    { name: 'unknown query parameter 400', method: 'GET', path: '/items?colour=red', headers: auth, status: 400, code: 'invalid_request' },
    { name: '401 without a token', method: 'GET', path: '/items', headers: {}, status: 401, code: 'unauthorized' },
    {
      name: '401 with a wrong token',
      method: 'GET',
      path: '/items',
      headers: { authorization: 'Bearer nope' },
      status: 401,
      code: 'unauthorized',
    },
    { name: 'unknown route 404', method: 'GET', path: '/nowhere', headers: auth, status: 404, code: 'not_found' },
    { name: 'handler HttpError 404', method: 'GET', path: '/items/itm_99999999', headers: auth, status: 404, code: 'item_not_found' },
    { name: '405 on a known path', method: 'PUT', path: '/items', headers: auth, status: 405, code: 'method_not_allowed' },
    {
      name: '415 for a form body',
      method: 'POST',
      path: '/items',
      headers: { ...auth, 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported_media_type',
    },
  ])('$name: $status {code: $code, message} and nothing else', async ({ method, path, headers, status, code }) => {
    const answer = await call(method, path, { headers });
    expect(answer.status).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ code, message: expect.any(String) });
  });

  it("500 from a throwing handler: Shelf's Error, nothing internal, logged with the operation", async () => {
    const answer = await call('POST', '/items', { headers: auth, body: { kind: 'book', title: 'crash' } });
    expect(answer).toMatchObject({ status: 500, body: { code: 'internal_error', message: 'Internal server error' } });
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ operationId: 'createItem' }), 'request failed');
  });

  it('an off-spec handler body under response validation (server URL with a +): 500, logged with the operation and the JSON pointer', async () => {
    const answer = await call('POST', '/items', { headers: auth, body: { kind: 'book', title: 'off-spec' } });
    expect(answer).toMatchObject({ status: 500, body: { code: 'internal_error' } });
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({
        operationId: 'createItem',
        errors: expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/\/response\/.*(id|title)/) })]),
      }),
      'response of createItem does not match the spec',
    );
  });
});

describe('Shelf: security, expand[] and free-form objects', () => {
  it('serves the public operation without a token, and a valid call passes response validation despite the + in the server URL', async () => {
    expect(await call('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call('GET', '/items/itm_00000001', { headers: auth })).toMatchObject({ status: 200, body: book });
  });

  it.each([
    ['expand[]=author&expand[]=shelf', ['author', 'shelf']],
    ['expand%5B%5D=shelf', ['shelf']],
    ['expand[1]=shelf&expand[0]=author', ['author', 'shelf']],
  ])('parses %s as an array (D117), the principal from the bearer authenticator', async (query, expected) => {
    expect((await call('GET', `/items?${query}`, { headers: auth })).status).toBe(200);
    expect(seen.expand).toEqual(expected);
    expect(seen.principal).toEqual({ user: 'ada' });
  });

  it('rejects an expand[] value outside the enum with 400 naming the item', async () => {
    const answer = await call('GET', '/items?expand[]=author&expand[]=bogus', { headers: auth });
    expect(answer.status).toBe(400);
    // Shelf's Error has no place for details: the message names the field and why (D216 rejections list failing fields in order)
    expect(answer.body).toEqual({
      code: 'invalid_request',
      message: 'query.expand[1]: must be equal to one of the allowed values: author, shelf',
    });
  });

  it('refuses to start when an operation declares security no authenticator covers, and serves it with the opt-out, logged as an error', () => {
    expect(() => createApiApp(spec, { handlers, logger })).toThrow(
      /4 operation\(s\) declare security that no authenticator covers: .*createItem \(bearerAuth\)/,
    );
    const loud = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    expect(() => createApiApp(spec, { handlers, logger: loud, allowUnauthenticated: true })).not.toThrow();
    expect(loud.error).toHaveBeenCalledWith(
      expect.anything(),
      expect.stringMatching(/allowUnauthenticated: SERVING 4 OPERATION\(S\) .* WITHOUT AUTHENTICATION/),
    );
  });

  it('types the error mapper by the declared error schemas, and empty objects as Record<string, unknown> (D118)', () => {
    expectTypeOf<DeclaredErrorResult<Handlers>['body']>().toEqualTypeOf<components['schemas']['Error']>();
    expectTypeOf<NonNullable<components['schemas']['Book']['metadata']>>().toEqualTypeOf<Record<string, unknown>>();
    // @ts-expect-error an error mapper must return a declared error body
    const wrong: DeclaredErrorResult<Handlers> = { status: 400, body: { success: false } };
    expect(wrong).toBeDefined();
  });
});

describe('a typed hook around handlers', () => {
  it('sees the operation, the typed request and the typed result, renders as the scaffold sends, and may answer with rendered bytes', async () => {
    const seenByHook: { operationId: string; status: number; rendered: string }[] = [];
    const cache = new Map<string, RenderedResponse>();
    const around: HandlerHook<Handlers<{ user: string }>, { user: string }> = async (call) => {
      const hit = cache.get(call.ctx.req.originalUrl);
      if (hit !== undefined) return new RenderedResponse(hit.status, hit.contentType, { ...hit.headers, 'X-Cache': 'hit' }, hit.body);
      const result = await call.next();
      const rendered = call.render({ result });
      seenByHook.push({ operationId: call.operationId, status: result.status, rendered: String(rendered.body) });
      if (call.operation.method === 'get') cache.set(call.ctx.req.originalUrl, rendered);
      return result;
    };
    const app = createApiApp<Handlers<{ user: string }>, { user: string }>(spec, {
      handlers,
      logger,
      around,
      authenticators: { bearerAuth: () => ({ user: 'ada' }) },
    });
    const hooked = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => hooked.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(hooked.address() as AddressInfo).port}/items/itm_00000001`;
      const first = await fetch(url, { headers: auth });
      const firstText = await first.text();
      const second = await fetch(url, { headers: auth });
      expect(second.headers.get('x-cache')).toBe('hit');
      expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(await second.text()).toBe(firstText);
      expect(seenByHook).toEqual([{ operationId: 'getItem', status: 200, rendered: firstText }]);
    } finally {
      await new Promise<void>((resolve) => hooked.close(() => resolve()));
    }
  });
});

describe('an operation the generator skipped on the server side', () => {
  it("needs no handler, is named at start-up and answers 501 in the spec's error shape", async () => {
    const { deleteItem: _skipped, ...served } = handlers;
    const warn = vi.fn();
    const app = createApiApp(
      {
        ...spec,
        requestValidators: {
          ...requestValidators,
          deleteItem: {
            parameters: [],
            queryNames: [],
            unsupported: "operation deleteItem: header parameter 'X-O': objects are only parsed in query and path parameters",
          },
        },
      },
      { handlers: served, logger: { info: vi.fn(), warn, error: vi.fn() }, authenticators: { bearerAuth: () => ({ user: 'ada' }) } },
    );
    expect(warn).toHaveBeenCalledWith(
      { operationId: 'deleteItem' },
      expect.stringMatching(/^deleteItem is not served \(501\): operation deleteItem: header parameter 'X-O'/),
    );
    const skippedServer = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => skippedServer.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(skippedServer.address() as AddressInfo).port}/items/itm_00000001`, {
        method: 'DELETE',
        headers: auth,
      });
      expect(response.status).toBe(501);
      expect(await response.json()).toEqual({
        code: 'not_implemented',
        message: expect.stringContaining('deleteItem is not served by this scaffold'),
      });
    } finally {
      await new Promise<void>((resolve) => skippedServer.close(() => resolve()));
    }
  });
});
