/**
 * Three small specs of our own (test/fixtures/error-schemas), generated and served by the scaffold: one whose only
 * error schema is `{status, err}`, one with lists of field errors (`{message, errors: [{in, field, reason}]}` and
 * FastAPI's 422 `{detail: [{loc, msg, type}]}`), and one whose error schema truly cannot be filled (a business code
 * enum, a required number of its own): the app refuses to start naming the operation, the status and the schema,
 * and starts with an `errorMapper`, whose answer takes the declared content type (D215 error schema filled by role).
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import type { JsonObject } from '../../packages/contract-tests/src/spec-check/samples.js';
import { type ApiSpec, createApiApp, type ErrorMapper } from '../../packages/server/src/runtime/app.js';
import type { Logger } from '../../packages/server/src/runtime/types.js';
import { ROOT } from '../generators/fixtures.js';
import { generateProject } from '../generators/support/compile-generated.js';
import { SpecProbe } from './support/scaffold-probe.js';

const FIXTURES = ['status-err', 'details-list', 'unfillable'] as const;
type Fixture = (typeof FIXTURES)[number];
const OUT = path.join(ROOT, 'test/fixtures/error-schemas/out', `scaffold-${process.pid}`);
const specOf = (name: Fixture): string => `test/fixtures/error-schemas/${name}.yaml`;
const probes = Object.fromEntries(
  FIXTURES.map((name) => [name, new SpecProbe(parse(readFileSync(path.join(ROOT, specOf(name)), 'utf8')) as JsonObject)]),
) as Record<Fixture, SpecProbe>;

const specs = {} as Record<Fixture, ApiSpec>;
const servers: Server[] = [];
const quiet = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }) satisfies Logger;

beforeAll(async () => {
  await rm(OUT, { recursive: true, force: true });
  for (const name of FIXTURES) {
    const dir = path.join(OUT, name);
    await generateProject({ openapi: specOf(name), targets: ['contract', 'server'], label: name, dir });
    const contract = (await import(/* @vite-ignore */ path.join(dir, 'generated/contract/index.ts'))) as Omit<ApiSpec, 'requestValidators'>;
    const validators = (await import(/* @vite-ignore */ path.join(dir, 'generated/server/request-validators.gen.ts'))) as Pick<
      ApiSpec,
      'requestValidators'
    >;
    specs[name] = {
      apiDocument: contract.apiDocument,
      operations: contract.operations,
      securitySchemes: contract.securitySchemes,
      requestValidators: validators.requestValidators,
    };
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(OUT, { recursive: true, force: true });
});

async function listen(app: import('express').Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const principal = { user: 'ada' };
const bases = {} as Record<'status-err' | 'details-list', string>;
const logs = { 'status-err': quiet(), 'details-list': quiet() };

beforeAll(async () => {
  bases['status-err'] = await listen(
    createApiApp(specs['status-err'], {
      handlers: { listLamps: async () => ({ status: 200, body: { lamps: [] } }) },
      notImplemented: 'respond',
      authenticators: { apiKey: ({ credential }) => (credential === 'key_good' ? principal : undefined) },
      logger: logs['status-err'],
    }),
  );
  bases['details-list'] = await listen(
    createApiApp(specs['details-list'], {
      handlers: {},
      notImplemented: 'respond',
      authenticators: { bearer: ({ credential }) => (credential === 'tok_good' ? principal : undefined) },
      logger: logs['details-list'],
    }),
  );
});

interface Row {
  name: string;
  fixture: 'status-err' | 'details-list';
  method?: string;
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  status: number;
  body: unknown;
}

const lamps = { 'x-api-key': 'key_good' };
const orders = { authorization: 'Bearer tok_good' };

describe('error bodies in the spec’s own schema, the failing field in them (D215, D216, D217, D219)', () => {
  it.each<Row>([
    {
      name: '{status, err}: a query parameter out of range, named in err',
      fixture: 'status-err',
      url: '/lamps?limit=500',
      headers: lamps,
      status: 400,
      body: { status: 400, err: 'query.limit: must be <= 100' },
    },
    {
      name: '{status, err}: a body missing a field and with an extra one, the first named and the count',
      fixture: 'status-err',
      method: 'POST',
      url: '/lamps',
      headers: lamps,
      json: { watts: 0, colour: 'red' },
      status: 400,
      body: { status: 400, err: "body.name: must have required property 'name' (and 2 more)" },
    },
    {
      name: '{status, err}: no credentials',
      fixture: 'status-err',
      url: '/lamps',
      status: 401,
      body: { status: 401, err: 'Missing credentials' },
    },
    {
      name: '{status, err}: a refused key is told so',
      fixture: 'status-err',
      url: '/lamps',
      headers: { 'x-api-key': 'key_revoked' },
      status: 401,
      body: { status: 401, err: 'Invalid credentials' },
    },
    {
      name: '{status, err}: an operation that declares 403 and no 401 refuses with 403',
      fixture: 'status-err',
      method: 'DELETE',
      url: '/lamps/lmp_abcd',
      headers: { 'x-api-key': 'key_revoked' },
      status: 403,
      body: { status: 403, err: 'Invalid credentials' },
    },
    {
      name: '{status, err}: a path parameter off its pattern',
      fixture: 'status-err',
      method: 'DELETE',
      url: '/lamps/lamp-1',
      headers: lamps,
      status: 400,
      body: { status: 400, err: 'path.lamp_id: must match pattern "^lmp_[a-z0-9]{4}$"' },
    },
    {
      name: '{status, err}: an operation without a handler yet answers 501 (declared nowhere: the spec’s error schema)',
      fixture: 'status-err',
      method: 'POST',
      url: '/lamps',
      headers: lamps,
      json: { name: 'desk' },
      status: 501,
      body: { status: 501, err: 'createLamp is not implemented yet' },
    },
    {
      name: '{message, errors: [{in, field, reason}]}: every failing field in the list, the message as it is',
      fixture: 'details-list',
      url: '/orders?limit=500&offset=-1',
      headers: orders,
      status: 400,
      body: {
        message: 'Request validation failed',
        errors: [
          { in: 'query', field: 'limit', reason: 'must be <= 100' },
          { in: 'query', field: 'offset', reason: 'must be >= 0' },
        ],
      },
    },
    {
      name: '{message, errors}: a required list with no field to name is empty',
      fixture: 'details-list',
      url: '/orders',
      headers: { authorization: 'Bearer tok_expired' },
      status: 401,
      body: { message: 'Invalid credentials', errors: [] },
    },
    {
      name: "FastAPI's 422 {detail: [{loc, msg, type}]} where the operation declares 422 and no 400",
      fixture: 'details-list',
      method: 'POST',
      url: '/orders',
      headers: orders,
      json: { quantity: 0 },
      status: 422,
      body: {
        detail: [
          { loc: ['body', 'item'], msg: "must have required property 'item'", type: 'invalid_request' },
          { loc: ['body', 'quantity'], msg: 'must be >= 1', type: 'invalid_request' },
        ],
      },
    },
  ])('$name', async ({ fixture, method, url, headers, json, status, body }) => {
    const response = await fetch(bases[fixture] + url, {
      method: method ?? 'GET',
      headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    expect({ status: response.status, body: JSON.parse(text) as unknown }).toEqual({ status, body });
    const probe = probes[fixture];
    const operation = probe.operations.find(
      (op) =>
        op.method === (method ?? 'GET').toLowerCase() && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.split('?')[0]!),
    )!;
    const read = probe.conformance(operation, response.status, response.headers.get('content-type')!.split(';')[0]!, text);
    // declared for the operation: valid against its schema; else against the schema the document declares for the status
    if (read.declared !== undefined) expect(read.violations).toEqual([]);
    else
      expect(
        probe
          .documentSchemas(status)
          .concat(probe.documentSchemas(400))
          .some((s) => probe.validate(s, read.body).length === 0),
      ).toBe(true);
  });

  it('no error schema is reported at start-up; the operations without a handler are listed once', () => {
    expect(logs['status-err'].warn.mock.calls).toEqual([
      [
        { operations: ['createLamp', 'deleteLamp'] },
        "notImplemented: 'respond': 2 operation(s) without a handler answer 501: createLamp, deleteLamp",
      ],
    ]);
    expect(logs['details-list'].warn).toHaveBeenCalledTimes(1);
  });
});

describe('an error schema the scaffold truly cannot fill (D215)', () => {
  const handlers = { listCards: async () => ({ status: 200, body: { cards: [] } }) };

  it('refuses to start, naming the operation, the status and the schema, and what to do', () => {
    expect(() => createApiApp(specs.unfillable, { handlers, logger: quiet() })).toThrow(
      'createApp: the scaffold cannot fill 1 declared error schema(s), 1 of them for answers it gives on its own (operation and status after each):\n' +
        "  #/components/schemas/CardError (application/vnd.cards.error+json): required property 'retry_window' has no meaning the runtime knows; declared by listCards 400\n" +
        'Pass `errorMapper` to createApiApp to shape these answers yourself',
    );
  });

  it('starts with an errorMapper, warns once, and its answer takes the declared content type', async () => {
    const logger = quiet();
    const errorMapper: ErrorMapper<typeof handlers> = (error) =>
      error.status === 400
        ? ({ status: 400, body: { code: 'limit_exceeded', retry_window: 'PT0S', message: error.message } } as never)
        : undefined;
    const base = await listen(createApiApp(specs.unfillable, { handlers, logger, errorMapper }));
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![1]).toMatch(
      /^1 declared error schema\(s\) cannot be filled by the scaffold \(your errorMapper answers them/,
    );
    const response = await fetch(`${base}/cards?limit=500`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/vnd\.cards\.error\+json/);
    expect(await response.json()).toEqual({ code: 'limit_exceeded', retry_window: 'PT0S', message: 'Request validation failed' });
  });
});
