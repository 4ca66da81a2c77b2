import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import { operations } from '../../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { SpecErrorShapes } from '../error-shapes.js';
import { classifyError, HttpError, HttpErrorWithPage } from '../errors.js';
import type { ApiDocument, Logger } from '../types.js';
import { errorHandler, errorShapes, renderError } from './error.js';
import type { ErrorMapper } from './options.js';
import { RenderedResponse } from './serialize.js';

const getOrder = operations.find((o) => o.operationId === 'getOrder')!;
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** One request to an app whose only route throws `thrown` (for `getOrder`, as the route step would set it). */
async function answer(
  thrown: unknown,
  {
    logger = quiet(),
    errorMapper,
    headers = {},
  }: { logger?: Logger; errorMapper?: ErrorMapper<unknown>; headers?: Record<string, string> } = {},
): Promise<{ status: number; type: string | null; headers: Headers; body: string }> {
  const app = express();
  app.get('/pg/orders/:order_id', (_req: Request, res: Response, next) => {
    res.locals.operation = getOrder;
    next(thrown);
  });
  app.use(errorHandler(logger, new SpecErrorShapes(apiDocument), errorMapper, () => ({ requestId: 'req-1' })));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/pg/orders/OD1`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, body: await res.text() };
}

const quiet = (): Logger => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe('error step', () => {
  it("a declared error is answered in the spec's shape (D119), with its code, message and details", async () => {
    const res = await answer(new HttpError(404, 'ERR_ORDER_404', 'Order not found', { order_id: 'no such order' }));
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toContain('ERR_ORDER_404');
    expect(res.body).toContain('no such order');
  });

  it("an internal error is 500 without its message; the log has it, the operation and the app's request fields", async () => {
    const logger = quiet();
    const res = await answer(new Error('database password is hunter2'), { logger });
    expect(res.status).toBe(500);
    expect(res.body).not.toContain('hunter2');
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ requestId: 'req-1', operationId: 'getOrder', method: 'GET', path: '/pg/orders/OD1' }),
      'request failed',
    );
  });

  it('a failed response validation is logged naming the JSON pointers', async () => {
    const logger = quiet();
    const invalid = Object.assign(new Error('bad response'), {
      status: 500,
      errors: [{ path: '/response/data/amount', message: 'must be number' }],
    });
    expect((await answer(invalid, { logger })).status).toBe(500);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ errors: [{ path: '/response/data/amount', message: 'must be number' }] }),
      'response of getOrder does not match the spec',
    );
  });

  it("the app's errorMapper answers instead, in the content type the spec declares for its status; undefined keeps the shaped one", async () => {
    const errorMapper = vi.fn<ErrorMapper<unknown>>((error, { operation, shaped }) =>
      error.status === 404 ? ({ status: 404, body: { mine: operation?.operationId, was: shaped.status } } as never) : undefined,
    );
    const own = await answer(new HttpError(404, 'ERR_ORDER_404', 'Order not found'), { errorMapper });
    expect([own.status, JSON.parse(own.body)]).toEqual([404, { mine: 'getOrder', was: 404 }]);
    const shaped = await answer(new HttpError(400, 'ERR_VALIDATION_400', 'Invalid'), { errorMapper });
    expect(shaped.body).toContain('ERR_VALIDATION_400');
  });

  it('an error with a page sends the page to a client that prefers its media type, the shaped error to the others', async () => {
    const error = new HttpErrorWithPage(
      429,
      'ERR_RATE_429',
      'slow down',
      undefined,
      { 'Retry-After': '3' },
      {
        contentType: 'text/html',
        text: '<p>slow down</p>',
      },
    );
    const page = await answer(error, { headers: { accept: 'text/html' } });
    expect([page.status, page.type, page.body, page.headers.get('retry-after')]).toEqual([
      429,
      'text/html; charset=utf-8',
      '<p>slow down</p>',
      '3',
    ]);
    const json = await answer(error, { headers: { accept: 'application/json' } });
    expect(json.body).not.toContain('<p>');
  });

  it('renderError: the bytes the error step would send, for a handler hook to record', () => {
    const app = express();
    const req = { path: '/pg/orders/OD1' } as Request;
    const rendered = renderError(
      app,
      req,
      classifyError(new HttpError(404, 'ERR_ORDER_404', 'Order not found')),
      getOrder,
      new SpecErrorShapes(apiDocument),
    );
    expect(rendered).toBeInstanceOf(RenderedResponse);
    expect(rendered.status).toBe(404);
    expect(typeof rendered.body === 'string' && JSON.parse(rendered.body)).toMatchObject({ success: false });
  });

  describe('errorShapes: the start-up report of declared error schemas the scaffold cannot fill', () => {
    // a 429 and a 501 whose schema requires a string no value the runtime makes fits (a number of unknown meaning is
    // given a neutral value now: D466 neutral values for required error properties of unknown meaning)
    const odd = { type: 'object', required: ['n'], properties: { n: { type: 'string', pattern: '^N[A-Z]$' } } };
    const content = { 'application/json': { schema: odd } };
    const document = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/things': {
          get: {
            operationId: 'listThings',
            responses: { '200': { description: 'ok' }, '429': { description: 'slow', content }, '501': { description: 'later', content } },
          },
        },
      },
    } as unknown as ApiDocument;

    it('429 and 501 the runtime never answers itself (no rateLimit hook, every operation served): a warning, the app starts', () => {
      const logger = quiet();
      errorShapes(document, { tooManyRequests: false, notImplemented: false }, undefined, logger);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.anything(),
        expect.stringMatching(/declared by listThings 429\n.*declared by listThings 501$/),
      );
    });

    it('a required number of unknown meaning on a 400: the app starts, one warning names it and errorMapper (D466)', () => {
      const counted = {
        type: 'object',
        required: ['message', 'count'],
        properties: { message: { type: 'string' }, count: { type: 'integer' } },
      };
      const logger = quiet();
      const shapes = errorShapes(
        {
          openapi: '3.1.0',
          info: { title: 'T', version: '1' },
          paths: {
            '/things': {
              get: {
                operationId: 'listThings',
                responses: {
                  '200': { description: 'ok' },
                  '400': { description: 'no', content: { 'application/json': { schema: counted } } },
                },
              },
            },
          },
        } as unknown as ApiDocument,
        { tooManyRequests: true, notImplemented: true },
        undefined,
        logger,
      );
      expect(shapes).toBeInstanceOf(SpecErrorShapes);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.anything(),
        expect.stringMatching(/'count'; declared by listThings 400\nPass `errorMapper` to createApiApp to give them their meaning\.$/),
      );
    });

    it("with a rateLimit hook, its 429 is the runtime's own answer: the app refuses to start without an errorMapper", () => {
      expect(() => errorShapes(document, { tooManyRequests: true, notImplemented: false }, undefined, quiet())).toThrow(
        /cannot fill 2 declared error schema\(s\), 1 of them for answers it gives on its own.*\n.*listThings 429\n/,
      );
      expect(() => errorShapes(document, { tooManyRequests: false, notImplemented: true }, undefined, quiet())).toThrow(
        /cannot fill 2 declared error schema\(s\), 1 of them/,
      );
      const logger = quiet();
      expect(errorShapes(document, { tooManyRequests: true, notImplemented: true }, vi.fn(), logger)).toBeInstanceOf(SpecErrorShapes);
      expect(logger.warn).toHaveBeenCalledWith(expect.anything(), expect.stringContaining('your errorMapper answers them'));
    });
  });
});
