import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import { operations } from '../../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { requestValidators } from '../../../../../test/fixtures/mini/generated/server/request-validators.gen.js';
import { HttpError } from '../errors.js';
import type { OperationRoute } from '../types.js';
import { allowByPath, notFound, rejectMalformedPathEncoding, routedApp, routeStep } from './route.js';

const errorOf = (handler: RequestHandler, req: Partial<Request>): unknown => {
  let passed: unknown = 'next() not called';
  handler(req as Request, {} as Response, (error?: unknown) => {
    passed = error;
  });
  return passed;
};

describe('route step', () => {
  describe('allowByPath', () => {
    it('lists each path with its methods in route-table order, static segments before parameters', () => {
      const route = (method: 'get' | 'post' | 'delete', path: string) => ({
        ...operations[0]!,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ':$1'),
      });
      expect(allowByPath([route('get', '/a/{id}'), route('delete', '/a/{id}'), route('get', '/a/b'), route('post', '/a')])).toEqual([
        { path: '/a/b', expressPath: '/a/b', allow: 'GET' },
        { path: '/a/{id}', expressPath: '/a/:id', allow: 'GET, DELETE' },
        { path: '/a', expressPath: '/a', allow: 'POST' },
      ]);
    });

    it('templates a client cannot tell apart share one Allow (D410 every path template real specs use is routed)', () => {
      const route = (method: 'get' | 'delete', path: string) => ({ ...operations[0]!, method, path, expressPath: '/tags/:arn' });
      expect(allowByPath([route('get', '/tags/{arn}'), route('delete', '/tags/{resource}#tagKeys')]).map((p) => p.allow)).toEqual([
        'GET, DELETE',
        'GET, DELETE',
      ]);
    });
  });

  describe('rejectMalformedPathEncoding', () => {
    const reject = rejectMalformedPathEncoding(['/pg/orders/{order_id}', '/pg/orders/{order_id}/documents/']);

    it('lets a path through whose percent-encoding decodes', () => {
      expect(errorOf(reject, { path: '/pg/orders/OD%20001' })).toBeUndefined();
    });

    it('answers 400 naming the parameter of the template the path matches', () => {
      const error = errorOf(reject, { path: '/pg/orders/%E0%A4%A/documents/' }) as HttpError;
      expect(error).toBeInstanceOf(HttpError);
      expect(error.status).toBe(400);
      expect(Object.keys(error.details!)).toEqual(['order_id']);
    });

    it('names `path` when no template matches', () => {
      const error = errorOf(reject, { path: '/elsewhere/%E0%A4%A' }) as HttpError;
      expect(error.details).toEqual({ path: expect.stringContaining('malformed percent-encoding') });
    });
  });

  it("notFound: 404, the runtime's not-found code", () => {
    const error = errorOf(notFound, {}) as HttpError;
    expect([error.status, error.code]).toEqual([404, 'ERR_REQUEST_404']);
  });

  describe('routeStep: the operation of a request, its steps run in order', () => {
    const ran: string[] = [];
    const record =
      (operation: OperationRoute, name: string): RequestHandler =>
      (_req, res, next) => {
        ran.push(`${operation.operationId}:${name}:${(res.locals.operation as OperationRoute | undefined)?.operationId}`);
        if (name === 'last') res.status(200).send(operation.operationId);
        else next();
      };
    const unmatched = vi.fn<RequestHandler>((_req, _res, next) => next());
    const warn = vi.fn();
    const app = routedApp();
    app.use(
      routeStep(
        apiDocument,
        operations,
        requestValidators,
        operations.map((operation) => ({ operation, steps: [record(operation, 'first'), record(operation, 'last')] })),
        [unmatched],
        { info: vi.fn(), warn, error: vi.fn() },
      ),
    );
    app.use(notFound);
    app.use((err: HttpError, _req: Request, res: Response, _next: NextFunction) => {
      res.status(err.status).set(err.headers).json({ code: err.code });
    });
    let server: Server;
    beforeAll(async () => {
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
    });
    afterAll(() => void server.close());
    const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

    it("runs the matched operation's steps, with `res.locals.operation` set", async () => {
      const response = await fetch(url('/pg/orders/OD0000000000000001'));
      expect([response.status, await response.text()]).toEqual([200, 'getOrder']);
      expect(ran).toEqual(['getOrder:first:getOrder', 'getOrder:last:getOrder']);
    });

    it('matches the path exactly as the spec writes it (routedApp): the other trailing slash or case is 404', async () => {
      expect((await fetch(url('/pg/orders'))).status).toBe(404);
      expect((await fetch(url('/PG/orders/'), { method: 'POST' })).status).toBe(404);
    });

    it('routedApp sends no X-Powered-By and no automatic ETag', async () => {
      const response = await fetch(url('/pg/orders/OD0000000000000001'));
      expect([response.headers.get('x-powered-by'), response.headers.get('etag')]).toEqual([null, null]);
    });

    it('a declared path with another method: the unmatched steps, then 405 with Allow', async () => {
      unmatched.mockClear();
      const response = await fetch(url('/pg/orders/'), { method: 'DELETE' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(unmatched).toHaveBeenCalledTimes(1);
    });

    it('a path segment that does not decode: 400 before any operation runs', async () => {
      ran.length = 0;
      const response = await fetch(url('/pg/orders/%E0%A4%A'));
      expect(response.status).toBe(400);
      expect(ran).toEqual([]);
    });
  });
});
