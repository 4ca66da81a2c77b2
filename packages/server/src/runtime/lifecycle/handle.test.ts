import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import { operations, securitySchemes } from '../../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { requestValidators } from '../../../../../test/fixtures/mini/generated/server/request-validators.gen.js';
import { SpecErrorShapes } from '../error-shapes.js';
import { HttpError } from '../errors.js';
import type { Logger, OperationRoute } from '../types.js';
import {
  type AnyHandler,
  type AnyHook,
  type HandleContext,
  handlerPlan,
  handlerRequest,
  handleStep,
  notImplementedStep,
  notServedStep,
} from './handle.js';
import type { ApiSpec } from './options.js';
import { RenderedResponse } from './serialize.js';

const spec: ApiSpec = { apiDocument, operations, securitySchemes, requestValidators };
const getOrder = operations.find((o) => o.operationId === 'getOrder')!;
const quiet = (): Logger => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });
const all = Object.fromEntries(operations.map((o) => [o.operationId, async () => ({ status: 204 })]));

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** GET /x/OD1 through the handle step of getOrder; errors answered `<status> <message>`. */
async function call(handler: AnyHandler<string>, around?: AnyHook<string>): Promise<{ status: number; type: string | null; body: string }> {
  const context: HandleContext<string> = {
    around,
    serializers: undefined,
    shapes: new SpecErrorShapes(apiDocument),
    errorMapper: undefined,
    validateResponses: false,
    logger: quiet(),
  };
  const app = express();
  app.get('/x/:order_id', (_req, res, next) => {
    res.locals.principal = 'partner-1';
    next();
  });
  app.get('/x/:order_id', handleStep(getOrder, handler, context));
  app.use(
    (err: HttpError, _req: Request, res: Response, _next: NextFunction) =>
      void res.status(err.status ?? 500).send(`${err.status} ${err.message}`),
  );
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x/OD1`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('handle step', () => {
  describe('handlerPlan', () => {
    it('refuses to start naming the operations without a handler', () => {
      const { getOrder: _, listRefunds: __, ...some } = all;
      expect(() => handlerPlan(spec, { handlers: some })).toThrow(
        /missing handler\(s\) for getOrder, listRefunds\. Write them, or pass `notImplemented: 'respond'`/,
      );
    });

    it("notImplemented: 'respond': the operations without a handler are listed to answer 501", () => {
      const { getOrder: _, ...some } = all;
      expect([...handlerPlan(spec, { handlers: some, notImplemented: 'respond' }).notImplemented]).toEqual(['getOrder']);
    });

    it('an operation the generator could not serve needs no handler: skipped with its reason', () => {
      const { getOrder: _, ...some } = all;
      const unsupported: ApiSpec = {
        ...spec,
        requestValidators: {
          ...requestValidators,
          getOrder: { ...requestValidators.getOrder!, unsupported: 'a cookie parameter of style form' },
        },
      };
      const plan = handlerPlan(unsupported, { handlers: some });
      expect([...plan.skipped]).toEqual([['getOrder', 'a cookie parameter of style form']]);
      expect(plan.notImplemented.size).toBe(0);
    });
  });

  it('handlerRequest: params, query and headers copied, files under their fields (one or many)', () => {
    const file = (fieldname: string) => ({
      fieldname,
      originalname: `${fieldname}.pdf`,
      mimetype: 'application/pdf',
      size: 1,
      buffer: Buffer.from('x'),
    });
    const upload = {
      fileFields: [
        { name: 'file', multiple: false },
        { name: 'pages', multiple: true },
      ],
    } as unknown as OperationRoute;
    const req = {
      params: { id: '1' },
      url: '/x?a=1',
      query: { a: '1' },
      headers: { 'x-a': 'b' },
      body: { document_type: 'invoice' },
      files: [file('file'), file('pages'), file('pages')],
    } as unknown as Request;
    const request = handlerRequest(upload, req);
    expect(request.params).toEqual({ id: '1' });
    expect(request.params).not.toBe(req.params);
    expect(request.query).toEqual({ a: '1' });
    expect(request.body).toEqual({ document_type: 'invoice', file: file('file'), pages: [file('pages'), file('pages')] });
  });

  it('calls the handler with the typed request and the principal, and sends its result', async () => {
    const handler = vi.fn<AnyHandler<string>>(async (request, ctx) => ({
      status: 200,
      body: { id: (request as { params: { order_id: string } }).params.order_id, who: ctx.principal },
    }));
    expect(await call(handler)).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: '{"id":"OD1","who":"partner-1"}' });
  });

  it('a handler error goes to the error step', async () => {
    expect((await call(() => Promise.reject(new HttpError(404, 'ERR_ORDER_404', 'Order not found')))).body).toBe('404 Order not found');
  });

  it('around: wraps the handler (next), may render a result or an error, and may answer a RenderedResponse byte for byte', async () => {
    const handler: AnyHandler<string> = async () => ({ status: 200, body: { ok: true } });
    const seen: string[] = [];
    const around: AnyHook<string> = async (c) => {
      seen.push(c.operationId);
      const result = await c.next();
      const asBytes = c.render({ result });
      const asError = c.render({ error: new HttpError(409, 'ERR_CONFLICT', 'Conflict') });
      seen.push(`${asBytes.status} ${String(asBytes.body)}`, String(asError.status));
      return new RenderedResponse(200, 'application/json', { 'Idempotent-Replayed': 'true' }, '{"replayed":true}');
    };
    expect(await call(handler, around)).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: '{"replayed":true}' });
    expect(seen).toEqual(['getOrder', '200 {"ok":true}', '409']);
  });

  it('501 steps: not implemented yet, and not served naming why', () => {
    const errors: HttpError[] = [];
    notImplementedStep(getOrder)({} as Request, {} as Response, (e) => errors.push(e as HttpError));
    notServedStep(getOrder, 'a cookie parameter')({} as Request, {} as Response, (e) => errors.push(e as HttpError));
    expect(errors.map((e) => [e.status, e.message])).toEqual([
      [501, 'getOrder is not implemented yet'],
      [501, 'getOrder is not served by this scaffold: a cookie parameter'],
    ]);
  });
});
