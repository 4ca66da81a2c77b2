/**
 * How the scaffold reads what a request carries, on a small spec of our own, generated and served with no handlers
 * (`notImplemented: 'respond'`: a request that passes validation is answered 501). Reductions of what the corpus run
 * found refused (docs/corpus.md, "status 400, expected 501"):
 * - a JSON body that is a string (`type: string` under application/json, WSO2's transform API): refused as "is not
 *   valid JSON" by the strict JSON parser; any JSON value is read now, and the schema decides (D431 a JSON body may be any JSON value);
 * - GitHub's `workflow_id` path parameter, `oneOf: [integer, string]`: a numeric id, coerced, matched both and was
 *   refused; alternatives of disjoint types are validated as `anyOf` (D432 a parameter oneOf of disjoint types validated as anyOf);
 * - Vonage's security `[{apiKey, apiSecret}, {apiKey, apiSig}]`, three API keys in the query: only the first scheme
 *   of each alternative was an allowed query parameter, so `api_secret` was "Unknown query parameter" (D434 every query API key of every security alternative allowed).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiSpec, createApiApp } from '../../packages/server/src/runtime/app.js';
import type { Logger } from '../../packages/server/src/runtime/types.js';
import { ROOT } from '../generators/fixtures.js';
import { generateProject } from '../generators/support/compile-generated.js';

const OUT = path.join(ROOT, 'test/fixtures/request-reading-out', `scaffold-${process.pid}`);

const problem = {
  description: 'error',
  content: {
    'application/json': {
      schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    },
  },
};

const spec = {
  openapi: '3.0.3',
  info: { title: 'Request reading', version: '1.0.0' },
  components: {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      apiSecret: { type: 'apiKey', in: 'query', name: 'api_secret' },
      apiSig: { type: 'apiKey', in: 'query', name: 'sig' },
    },
  },
  paths: {
    '/transform': {
      post: {
        operationId: 'transform',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'string', minLength: 1 } } } },
        responses: { '200': { description: 'ok' }, '400': problem },
      },
    },
    '/count': {
      post: {
        operationId: 'count',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'integer' } } } },
        responses: { '200': { description: 'ok' }, '400': problem },
      },
    },
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } },
        },
        responses: { '201': { description: 'created' }, '400': problem },
      },
    },
    '/sms': {
      get: {
        operationId: 'smsConversion',
        security: [
          { apiKey: [], apiSecret: [] },
          { apiKey: [], apiSig: [] },
        ],
        parameters: [{ name: 'message-id', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' }, '400': problem, '401': problem },
      },
    },
    '/workflows/{workflow_id}': {
      get: {
        operationId: 'getWorkflow',
        parameters: [
          { name: 'workflow_id', in: 'path', required: true, schema: { oneOf: [{ type: 'integer' }, { type: 'string' }] } },
          // alternatives that overlap (a number and an integer) keep `oneOf`: 7 matches both, 7.5 only one
          { name: 'ratio', in: 'query', schema: { oneOf: [{ type: 'number' }, { type: 'integer' }] } },
        ],
        responses: { '200': { description: 'ok' }, '400': problem },
      },
    },
  },
};

let base: string;
let server: Server;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;

beforeAll(async () => {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'openapi.json'), JSON.stringify(spec));
  const dir = path.join(OUT, 'project');
  await generateProject({
    openapi: path.relative(ROOT, path.join(OUT, 'openapi.json')),
    targets: ['contract', 'server'],
    label: 'request-reading',
    dir,
    lint: 'strict',
  });
  const contract = (await import(/* @vite-ignore */ path.join(dir, 'generated/contract/index.ts'))) as Omit<ApiSpec, 'requestValidators'>;
  const validators = (await import(/* @vite-ignore */ path.join(dir, 'generated/server/request-validators.gen.ts'))) as Pick<
    ApiSpec,
    'requestValidators'
  >;
  const app = createApiApp(
    {
      apiDocument: contract.apiDocument,
      operations: contract.operations,
      securitySchemes: contract.securitySchemes,
      requestValidators: validators.requestValidators,
    },
    {
      handlers: {},
      notImplemented: 'respond',
      logger,
      authenticators: Object.fromEntries(
        ['apiKey', 'apiSecret', 'apiSig'].map((name) => [
          name,
          ({ credential }: { credential: unknown }) => (credential === 'good' ? {} : undefined),
        ]),
      ),
    },
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(path.dirname(OUT), { recursive: true, force: true });
});

async function send(method: string, url: string, body?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${url}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, text: await res.text() };
}

describe('a JSON body is any JSON value; the schema decides (D431)', () => {
  it.each([
    { name: 'a string body where a string is declared', url: '/transform', body: '"<a>1</a>"', status: 501 },
    { name: 'a number body where an integer is declared', url: '/count', body: '42', status: 501 },
    { name: 'a string body, chunked (body-parser reads it)', url: '/transform', body: '"x"', status: 501, chunked: true },
  ])('$name: answered $status', async ({ url, body, status, chunked }) => {
    const res = chunked
      ? await fetch(`${base}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: new Blob([body]).stream(),
          duplex: 'half',
        } as RequestInit).then(async (r) => ({ status: r.status, text: await r.text() }))
      : await send('POST', url, body);
    expect(res.status, res.text).toBe(status);
  });

  it('a string where an object is declared is refused by the schema, naming why; an empty string by its minLength', async () => {
    const wrongType = await send('POST', '/things', '"a name"');
    expect(wrongType.status).toBe(400);
    expect(wrongType.text).toContain('must be object');
    expect(wrongType.text).not.toContain('not valid JSON');
    const tooShort = await send('POST', '/transform', '""');
    expect(tooShort.status).toBe(400);
    expect(tooShort.text).toContain('must NOT have fewer than 1 characters');
  });

  it('null, a number and an array where an object is declared: each refused naming why, and the connection lives on', async () => {
    for (const body of ['null', '7', '[]', ' "x" ']) {
      const res = await send('POST', '/things', body);
      expect(res.status, `${body}: ${res.text}`).toBe(400);
      expect(res.text).toContain('must be object');
    }
  });

  it('malformed JSON is still "is not valid JSON"', async () => {
    const res = await send('POST', '/transform', '"unterminated');
    expect(res.status).toBe(400);
    expect(res.text).toContain('is not valid JSON');
  });
});

describe("a parameter's oneOf of disjoint types accepts what it means once coerced (D432)", () => {
  it.each(['42', 'ci.yml'])('workflow_id %s: answered 501', async (id) => {
    const res = await send('GET', `/workflows/${id}`);
    expect(res.status, res.text).toBe(501);
  });

  it('an overlapping oneOf is kept: 7 matches number and integer and is refused, 7.5 one and is accepted', async () => {
    expect((await send('GET', '/workflows/42?ratio=7.5')).status).toBe(501);
    const both = await send('GET', '/workflows/42?ratio=7');
    expect(both.status).toBe(400);
    expect(both.text).toContain('ratio');
  });
});

describe('every API key of every security alternative may sit in the query (D434)', () => {
  it.each(['api_key=good&api_secret=good', 'api_key=good&sig=good'])('%s: answered 501', async (credentials) => {
    const res = await send('GET', `/sms?message-id=m1&${credentials}`);
    expect(res.status, res.text).toBe(501);
  });

  it('a query parameter no scheme and no parameter declares is still refused', async () => {
    const res = await send('GET', '/sms?message-id=m1&api_key=good&api_secret=good&other=1');
    expect(res.status).toBe(400);
    expect(res.text).toContain('other');
  });
});
