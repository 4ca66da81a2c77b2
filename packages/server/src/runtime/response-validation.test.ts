import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponseValidator, validationDocument } from './response-validation.js';
import type { ApiDocument, OperationRoute } from './types.js';

/** 20 operations (two groups of the validator), each answering `{ id: <integer> }`; `/things/special` beside `/things/{id}`. */
const paths: Record<string, unknown> = {};
for (let i = 0; i < 19; i++) {
  paths[`/items${i}/{id}`] = {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: {
      operationId: `getItem${i}`,
      responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
    },
  };
}
paths['/things/special'] = {
  get: {
    operationId: 'getSpecial',
    responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Special' } } } } },
  },
};
const document = {
  openapi: '3.1.0',
  info: { title: 'Groups', version: '1.0.0' },
  paths,
  components: {
    schemas: {
      Item: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      Special: { type: 'object', required: ['special'], properties: { special: { type: 'boolean' } } },
      Unused: { type: 'string' },
    },
  },
} as unknown as ApiDocument;

const route = (path: string, operationId: string): OperationRoute =>
  ({ operationId, method: 'get', path, expressPath: path.replace(/\{(\w+)\}/g, ':$1') }) as OperationRoute;

describe('validationDocument', () => {
  it('holds the operations under member paths, without parameters, with only the components they reach', () => {
    const reduced = validationDocument(document, [
      { path: '/items3/{id}', method: 'get' },
      { path: '/things/special', method: 'get' },
    ]) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: object } };
    expect(Object.keys(reduced.paths)).toEqual(['/operation-0', '/operation-1']);
    expect(reduced.paths['/operation-0']?.['get']?.['operationId']).toBe('getItem3');
    expect(reduced.paths['/operation-0']).not.toHaveProperty('parameters');
    expect(Object.keys(reduced.components.schemas).sort()).toEqual(['Item', 'Special']);
  });
});

describe('createResponseValidator over groups of operations', () => {
  let base = '';
  let close: () => void = () => undefined;
  /** What each route answers: set per test. */
  const answers = new Map<string, unknown>();
  beforeAll(async () => {
    const app = express();
    const routes = [
      ...Array.from({ length: 19 }, (_, i) => route(`/items${i}/{id}`, `getItem${i}`)),
      route('/things/special', 'getSpecial'),
    ];
    for (const operation of routes) {
      app.get(`/api${operation.expressPath}`, createResponseValidator(document, operation), (req, res) => {
        // what the handler sees after the validator's steps: the request's own URL and params
        res.set('x-seen', JSON.stringify({ url: req.originalUrl, params: req.params }));
        res.json(answers.get(operation.operationId));
      });
    }
    app.use((err: { status?: number; message?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(err.status ?? 500).json({ error: err.message });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    close = () => server.close();
  });
  afterAll(() => close());

  it.each([
    ['the first group', 'getItem0', '/items0/7', { id: 7 }, 200],
    ['the first group, off the spec', 'getItem0', '/items0/7', { id: 'seven' }, 500],
    ['the second group', 'getItem18', '/items18/7', { id: 7 }, 200],
    ['the second group, off the spec', 'getItem18', '/items18/7', { id: 'seven' }, 500],
    [
      'a static path another template could match is validated as its own operation',
      'getSpecial',
      '/things/special',
      { special: true },
      200,
    ],
    ['the static path, off its spec', 'getSpecial', '/things/special', { id: 7 }, 500],
  ])('%s', async (_, operationId, path, body, status) => {
    answers.set(operationId, body);
    const res = await fetch(`${base}${path}?q=1`);
    expect(res.status).toBe(status);
    if (status === 200)
      expect(JSON.parse(res.headers.get('x-seen') ?? '{}')).toEqual({
        url: `/api${path}?q=1`,
        params: path.startsWith('/items') ? { id: '7' } : {},
      });
  });
});
