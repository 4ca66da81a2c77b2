/**
 * Differential test: the Paygate spec served twice by `createApp`, once with express-openapi-validator and once with
 * the precompiled validators, echo handlers behind both. Thousands of generated requests (valid, mutated, malformed:
 * parameters, bodies, content types, methods, multipart) must get byte-identical answers: status, body (the error
 * envelope and its `details`, or the echoed request the handler saw after coercion and defaults) and `Allow`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../../../test/support/arbitraries.js';
import { createApp } from '../app.js';
import { apiDocument, operations } from '@paygate/contract';
import type { RequestValidationMode } from './app.js';
import type { OperationRoute } from './types.js';

type Obj = Record<string, unknown>;
const doc = apiDocument as unknown as { paths: Record<string, Obj>; components: { parameters: Record<string, Obj> } };

function echo(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (key === 'host') return undefined;
      if (key === 'content-type' && typeof v === 'string') return v.replace(/boundary=[^;]+/, 'boundary=X'); // random per request
      if (v !== null && typeof v === 'object' && 'buffer' in v && 'originalname' in v) {
        const f = v as unknown as { originalname: string; size: number; mimetype: string; fieldname: string };
        return { file: f.originalname, size: f.size, mimetype: f.mimetype, field: f.fieldname };
      }
      return v;
    }),
  );
}

const servers: Server[] = [];
const bases: Record<RequestValidationMode, string> = { 'express-openapi-validator': '', precompiled: '' };

beforeAll(async () => {
  for (const mode of ['express-openapi-validator', 'precompiled'] as const) {
    const handlers: Record<string, (req: unknown) => Promise<{ status: number; body: unknown }>> = {};
    for (const op of operations) handlers[op.operationId] = async (req) => ({ status: 200, body: { op: op.operationId, req: echo(req) } });
    const app = createApp({ handlers: handlers as never, requestValidation: mode, validateResponses: false, bodyLimit: '64kb', uploadLimits: { fileSize: 2048 } });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    bases[mode] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

interface Param {
  name: string;
  in: string;
  schema: Obj;
  pointer: string;
}

const esc = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

function parametersOf(op: OperationRoute): Param[] {
  const item = doc.paths[op.path]!;
  const operation = item[op.method] as Obj;
  const at = (list: Obj[] | undefined, base: string) => (list ?? []).map((p, i) => ({ p, where: `${base}/parameters/${i}` }));
  const list = [...at(operation.parameters as Obj[] | undefined, `#/paths/${esc(op.path)}/${op.method}`), ...at(item.parameters as Obj[] | undefined, `#/paths/${esc(op.path)}`)];
  return list.map(({ p, where }) => {
    const ref = typeof p.$ref === 'string' ? p.$ref : undefined;
    const param = ref !== undefined ? doc.components.parameters[ref.split('/').pop()!]! : p;
    const schema = param.schema as Obj;
    const pointer = typeof schema.$ref === 'string' ? schema.$ref : `${ref ?? where}/schema`;
    return { name: param.name as string, in: param.in as string, schema, pointer };
  });
}

const junk = fc.constantFrom('', 'abc', '-1', '0', '1', '2', '250', '251', '99999999', '1.5', 'true', 'a*b', "it's", 'x(1)', 'a,b', '%00', '[]', 'OD0000000000000001', '12345678', 'null');

function valueFor(p: Param): fc.Arbitrary<string> {
  const valid = arbitraryFor(p.pointer).map(String);
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: junk }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

function bodyPointer(op: OperationRoute): string | undefined {
  const media = op.requestMediaTypes[0];
  if (media === undefined) return undefined;
  return `#/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}/requestBody/content/${media.replace(/\//g, '~1')}/schema`;
}

function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fc.constant(value);
  const keys = Object.keys(value);
  return fc.oneof(
    fc.constant(value),
    keys.length === 0 ? fc.constant(value) : fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(value).filter(([x]) => x !== k))),
    keys.length === 0 ? fc.constant(value) : fc.tuple(fc.constantFrom(...keys), fc.constantFrom<unknown>(1, 'x', null, true, [], {}, -1, '1.00')).map(([k, v]) => ({ ...value, [k]: v })),
    fc.constant({ ...value, unexpected_field: 1 }),
    fc.constantFrom<unknown>(null, [], 'text', 42, {}),
  );
}

function requestArb(op: OperationRoute): fc.Arbitrary<Built> {
  const params = parametersOf(op);
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const headers = params.filter((p) => p.in === 'header');
  const pathArb = fc.tuple(...pathParams.map((p) => valueFor(p))).map((values) => {
    let url = op.path;
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(values[i]!) || 'x')));
    return url;
  });
  const queryArb = fc
    .tuple(
      fc.subarray(query).chain((chosen) => fc.tuple(...chosen.map((p) => valueFor(p).map((v) => [p.name, v] as const)))),
      fc.oneof({ weight: 5, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.constantFrom<[string, string][]>([['unknown', '1']], [['page[x]', '1']], [['page', '1'], ['page', '2']]) }),
      fc.boolean(),
    )
    .map(([pairs, extra, raw]) => {
      const all = [...pairs, ...extra];
      if (all.length === 0) return '';
      // raw: values as written (reserved characters unencoded); else URLSearchParams encoding
      return raw ? `?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : `?${new URLSearchParams(all as [string, string][]).toString()}`;
    });
  const headerArb = fc.tuple(...headers.map((p) => fc.option(valueFor(p), { nil: undefined }).map((v) => [p.name, v] as const))).map((pairs) => {
    const out: Record<string, string> = {};
    for (const [k, v] of pairs) if (v !== undefined && /^[\x20-\x7e]*$/.test(v)) out[k] = v;
    return out;
  });
  const pointer = bodyPointer(op);
  const multipart = op.requestMediaTypes.includes('multipart/form-data');
  let bodyArb: fc.Arbitrary<{ body?: string | FormData; contentType?: string }> = fc.constant({});
  if (multipart) {
    bodyArb = fc
      .record({
        documentType: fc.constantFrom('invoice', 'air_waybill', 'INVOICE', 'BANK_PROOF', 'passport', undefined),
        files: fc.integer({ min: 0, max: 2 }),
        fileSize: fc.constantFrom(4, 4096),
        extra: fc.boolean(),
      })
      .map(({ documentType, files, fileSize, extra }) => {
        const form = new FormData();
        if (documentType !== undefined) form.append('document_type', documentType);
        if (extra) form.append('identifier', 'INV-1');
        for (let i = 0; i < files; i++) form.append('file', new Blob([new Uint8Array(fileSize)], { type: 'application/pdf' }), `f${i}.pdf`);
        return { body: form };
      });
  } else if (pointer !== undefined) {
    const valid = arbitraryFor(pointer);
    bodyArb = fc.tuple(valid.chain(mutate), fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/xml', undefined, 'application/x-www-form-urlencoded'), fc.integer({ min: 0, max: 20 })).map(([value, contentType, malformed]) => {
      const isForm = op.requestMediaTypes[0] === 'application/x-www-form-urlencoded';
      let body = isForm && value !== null && typeof value === 'object' ? new URLSearchParams(value as Record<string, string>).toString() : JSON.stringify(value);
      if (malformed === 0) body = '{"broken": ';
      const ct = isForm && contentType === 'application/json' ? 'application/x-www-form-urlencoded' : contentType;
      return ct === undefined ? { body } : { body, contentType: ct };
    });
  }
  const methodArb = fc.oneof({ weight: 12, arbitrary: fc.constant(op.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS') });
  return fc.tuple(methodArb, pathArb, queryArb, headerArb, bodyArb).map(([method, path, qs, hdrs, b]) => {
    const headers: Record<string, string> = { ...hdrs };
    if (b.contentType !== undefined) headers['content-type'] = b.contentType;
    const built: Built = { method, url: `${path}${qs}`, headers };
    if (b.body !== undefined && method !== 'HEAD' && method !== 'GET') built.body = b.body;
    return built;
  });
}

async function send(base: string, r: Built): Promise<{ status: number; allow: string | null; body: string }> {
  const res = await fetch(`${base}${r.url}`, { method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) });
  return { status: res.status, allow: res.headers.get('allow'), body: await res.text() };
}

describe('precompiled request validation answers exactly like express-openapi-validator (Paygate spec)', () => {
  it.each(operations.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const samples = fc.sample(requestArb(op), { numRuns: 120, seed: 20261121 });
    const statuses = new Map<number, number>();
    for (const r of samples) {
      const [a, b] = [await send(bases['express-openapi-validator'], r), await send(bases.precompiled, r)];
      expect({ request: r, ...b }, `${r.method} ${r.url}`).toEqual({ request: r, ...a });
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
    // the corpus must reach the handler and the validator alike
    expect([...statuses.keys()].some((s) => s === 200), `statuses ${JSON.stringify([...statuses])}`).toBe(true);
  });

  it('unknown paths, other methods and malformed bodies on them', async () => {
    const cases: Built[] = [
      { method: 'GET', url: '/nope', headers: {} },
      { method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, body: '{"x": ' },
      { method: 'DELETE', url: '/pg/orders/', headers: {} },
      { method: 'PUT', url: '/pg/orders/OD0000000000000001', headers: {} },
      { method: 'OPTIONS', url: '/pg/refunds', headers: {} },
      { method: 'PATCH', url: '/webhooks/endpoints', headers: { 'content-type': 'application/json' }, body: '{}' },
      { method: 'HEAD', url: '/pg/orders/OD0000000000000001', headers: {} },
      { method: 'GET', url: '/pg/orders/%E0%A4%A', headers: {} },
    ];
    for (const r of cases) {
      const [a, b] = [await send(bases['express-openapi-validator'], r), await send(bases.precompiled, r)];
      expect({ request: r, ...b }).toEqual({ request: r, ...a });
    }
  });
});
