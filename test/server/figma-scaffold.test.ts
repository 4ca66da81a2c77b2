/**
 * Figma's REST API (test/fixtures/realworld/figma: OpenAPI 3.1, 47 operations, apiKey or OAuth2, its own error
 * schemas `{error: true, status, message}` and `{status, err}`), generated as a project of its own and served by the
 * scaffold, first with NO handlers (`notImplemented: 'respond'`, D218), then with a few. Every operation gets a valid
 * request (sampled from its schemas), an invalid one, one without credentials and one with refused credentials, and
 * every answer is read against the spec (support/scaffold-probe.ts): the status it declares, the content type it
 * declares, the body valid against the declared schema. Where an operation declares no status for an answer (32
 * declare no 401, 11 no 400, 46 no 501), the answer keeps its status and comes in the schema the document declares
 * for that status elsewhere (D119 scaffold shapes its answers from the spec), or takes the status the operation declares for the same meaning (D217: 403 for
 * a credential refusal).
 */
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import type { JsonObject } from '../../packages/contract-tests/src/spec-check/samples.js';
import type { Logger } from '../../packages/server/src/runtime/types.js';
import { ROOT } from '../generators/fixtures.js';
import { compileProject, generateProject } from '../generators/support/compile-generated.js';
import { SpecProbe, type ProbeAnswer, type ProbedOperation, type ProbeKind } from './support/scaffold-probe.js';

const SPEC = 'test/fixtures/realworld/figma/openapi.yaml';
// inside the repository so that vitest transforms the generated TypeScript; `test/fixtures/*/out` is git- and tsc-ignored
const DIR = path.join(ROOT, 'test/fixtures/realworld/out', `figma-scaffold-${process.pid}`);
const probe = new SpecProbe(parse(readFileSync(path.join(ROOT, SPEC), 'utf8')) as JsonObject);

/** The team's server: typed by the generated contract; the handlers it has so far, the rest answered 501. */
const APP = `import { createApiApp, HttpError, type Logger } from '@paygate/server';
import { apiDocument, operations, securitySchemes } from './generated/contract/index.js';
import type { Handlers } from './generated/server/handlers.gen.js';
import { requestValidators } from './generated/server/request-validators.gen.js';

type Principal = { user: string };
const spec = { apiDocument, operations, securitySchemes, requestValidators };
const token = (good: string) => ({ credential }: { credential: unknown }) => (credential === good ? { user: 'ada' } : undefined);
const authenticators = { PersonalAccessToken: token('figd_good'), OAuth2: token('oauth_good'), OrgOAuth2: token('oauth_good') };

/** A team's first handlers. */
export const someHandlers: Partial<Handlers<Principal>> = {
  async getMe() {
    return { status: 200, body: { id: '1', handle: 'ada', img_url: 'https://example.com/ada.png', email: 'ada@example.com' } };
  },
  async getComments() {
    return { status: 200, body: { comments: [] } };
  },
  async deleteComment() {
    return { status: 200, body: { status: 200, error: false } };
  },
  async getImages() {
    return { status: 200, body: { err: null, images: {} } };
  },
  async getFileMeta(req) {
    throw new HttpError(404, 'not_found', \`No file \${req.params.file_key}\`);
  },
};

export function createFigmaApp(handlers: Partial<Handlers<Principal>>, logger: Logger) {
  return createApiApp<Handlers<Principal>, Principal>(spec, { handlers, notImplemented: 'respond', authenticators, logger, validateResponses: false });
}

/** Never called: what the compiler accepts and refuses. */
export function typeLevel(): void {
  // @ts-expect-error without notImplemented: 'respond' every operation needs a handler
  createApiApp<Handlers<Principal>, Principal>(spec, { handlers: someHandlers, authenticators });
  createApiApp<Handlers<Principal>, Principal>(spec, {
    // @ts-expect-error a handler given must still answer in a declared shape
    handlers: { getMe: async () => ({ status: 200, body: { id: 1 } }) },
    notImplemented: 'respond',
    authenticators,
  });
  // @ts-expect-error 'respond' is the one other mode
  createApiApp<Handlers<Principal>, Principal>(spec, { handlers: someHandlers, notImplemented: 'ignore', authenticators });
}
`;

interface FigmaModule {
  someHandlers: Record<string, unknown>;
  createFigmaApp(handlers: Record<string, unknown>, logger: Logger): Express;
}

let figma: FigmaModule;
const servers: Server[] = [];

async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await generateProject({ openapi: SPEC, targets: ['contract', 'server'], label: 'figma-scaffold', dir: DIR });
  await writeFile(path.join(DIR, 'app.ts'), APP);
  figma = (await import(/* @vite-ignore */ path.join(DIR, 'app.ts'))) as FigmaModule;
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(DIR, { recursive: true, force: true });
});

/** Credentials each operation accepts (the personal access token where it may, else an OAuth2 bearer token). */
function credentials(operation: ProbedOperation, good: boolean): Record<string, string> {
  if (operation.security.some((alternative) => alternative.includes('PersonalAccessToken')))
    return { 'x-figma-token': good ? 'figd_good' : 'figd_revoked' };
  return { authorization: `Bearer ${good ? 'oauth_good' : 'oauth_expired'}` };
}

async function ask(baseUrl: string, operation: ProbedOperation, kind: ProbeKind): Promise<ProbeAnswer | undefined> {
  const request = probe.request(operation, kind, baseUrl, credentials(operation, true), credentials(operation, false));
  return request === undefined ? undefined : probe.send(request);
}

/**
 * The answer has `status` and conforms: in the operation's declared shape when it declares the status, else in the
 * schema the document declares for that status; never problem+json.
 */
function expectConforming(answer: ProbeAnswer, status: number): void {
  const where = `${answer.request.label} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBe(status);
  expect(answer.contentType, where).toBe('application/json');
  if (answer.declared !== undefined) {
    expect(answer.violations, where).toEqual([]);
    return;
  }
  const schemas = probe.documentSchemas(status);
  expect(schemas.length, `${where}: the document declares no schema for ${status}`).toBeGreaterThan(0);
  expect(
    schemas.map((s) => probe.validate(s, answer.body)).some((violations) => violations.length === 0),
    `${where}: valid against none of ${schemas.join(', ')}`,
  ).toBe(true);
}

/** The status of a credential refusal: 401, or 403 where the operation declares 403 and not 401 (D217 422 or 403 when that is what the spec declares). */
const refusedStatus = (op: ProbedOperation): number => (!probe.declares(op, 401) && op.responses.has('403') ? 403 : 401);
const invalidStatus = (op: ProbedOperation): number => (!probe.declares(op, 400) && op.responses.has('422') ? 422 : 400);

describe('Figma served with no handlers at all (notImplemented: respond)', () => {
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await listen(figma.createFigmaApp({}, logger));
  });

  it('starts, and says once that the 47 operations answer 501; no error schema is left unfilled', () => {
    expect(probe.operations).toHaveLength(47);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [fields, message] = logger.warn.mock.calls[0]!;
    expect(message).toMatch(
      /^notImplemented: 'respond': 47 operation\(s\) without a handler answer 501: getActivityLogs, .*, getWebhookRequests$/,
    );
    expect((fields as { operations: string[] }).operations).toHaveLength(47);
  });

  it.each(probe.operations.map((op) => [op.operationId, op] as const))(
    '%s: valid -> 501, invalid -> 400 naming the field, no credentials -> Missing, refused -> Invalid; each in a declared shape',
    async (_id, operation) => {
      const valid = (await ask(baseUrl, operation, 'valid'))!;
      expectConforming(valid, 501);
      expect(valid.text).toContain(`${operation.operationId} is not implemented yet`);

      const invalid = (await ask(baseUrl, operation, 'invalid'))!;
      expectConforming(invalid, invalidStatus(operation));
      expect(invalid.text, invalid.request.label).toContain(invalid.request.field);

      const anonymous = (await ask(baseUrl, operation, 'unauthenticated'))!;
      expectConforming(anonymous, refusedStatus(operation));
      expect(anonymous.text).toContain('Missing credentials');

      const refused = (await ask(baseUrl, operation, 'refused'))!;
      expectConforming(refused, refusedStatus(operation));
      expect(refused.text).toContain('Invalid credentials');
    },
  );

  it.each<{ name: string; method?: string; path: string; headers?: Record<string, string>; body: unknown }>([
    {
      name: "a 400 in Figma's {status, err}, the field and the reason in err",
      path: '/v1/files/abc?depth=deep',
      body: { status: 400, err: expect.stringMatching(/^query\.depth: must be number/) },
    },
    {
      name: "a 401 in Figma's {error: true, status, message}",
      path: '/v1/activity_logs',
      headers: {},
      body: { error: true, status: 401, message: 'Missing credentials' },
    },
    {
      name: "a 403 where no 401 is declared, in Figma's {status, err}",
      path: '/v1/files/abc',
      headers: { 'x-figma-token': 'figd_revoked' },
      body: { status: 403, err: 'Invalid credentials' },
    },
    {
      name: "a 405 (declared nowhere) in Figma's most common error schema, not problem+json",
      method: 'PATCH',
      path: '/v1/files/abc',
      body: { status: 405, err: 'Method not allowed on this path' },
    },
    {
      name: "an unknown route 404 in the 404 schema most of Figma's operations declare",
      path: '/v1/nowhere',
      body: { error: true, status: 404, message: 'No such route' },
    },
    {
      name: "a 415 (declared nowhere) naming what to send, in Figma's {status, err}",
      method: 'POST',
      path: '/v1/files/abc/comments',
      headers: { 'x-figma-token': 'figd_good', 'content-type': 'text/plain' },
      body: { status: 415, err: 'Unsupported content type (header.content-type: must be one of: application/json)' },
    },
  ])('$name', async ({ method, path: url, headers, body }) => {
    const response = await fetch(baseUrl + url, {
      method: method ?? 'GET',
      headers: headers ?? { 'x-figma-token': 'figd_good' },
      ...(method === 'POST' ? { body: 'hi' } : {}),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(body);
  });
});

describe('Figma served with a few handlers', () => {
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await listen(figma.createFigmaApp(figma.someHandlers, logger));
  });

  it('compiles strictly: the handlers map is Partial only with notImplemented: respond', { timeout: 300_000 }, async () => {
    const outcome = await compileProject(DIR, ['generated', 'app.ts']);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });

  it('lists the 42 operations still without a handler, once', () => {
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![1]).toMatch(
      /^notImplemented: 'respond': 42 operation\(s\) without a handler answer 501: getActivityLogs, /,
    );
    const listed = (logger.warn.mock.calls[0]![0] as { operations: string[] }).operations;
    expect(listed).toHaveLength(42);
    expect(listed.filter((id) => ['getMe', 'getComments', 'deleteComment', 'getImages', 'getFileMeta'].includes(id))).toEqual([]);
  });

  const implemented = new Map([
    ['getMe', 200],
    ['getComments', 200],
    ['deleteComment', 200],
    ['getImages', 200],
    ['getFileMeta', 404],
  ]);
  it.each(probe.operations.map((op) => [op.operationId, op] as const))(
    '%s: the handler answers a valid request, or 501; invalid and unauthenticated as before',
    async (id, operation) => {
      const valid = (await ask(baseUrl, operation, 'valid'))!;
      expectConforming(valid, implemented.get(id) ?? 501);
      const invalid = (await ask(baseUrl, operation, 'invalid'))!;
      expectConforming(invalid, invalidStatus(operation));
      expect(invalid.text).toContain(invalid.request.field);
      const anonymous = (await ask(baseUrl, operation, 'unauthenticated'))!;
      expectConforming(anonymous, refusedStatus(operation));
    },
  );

  it("a handler's HttpError comes in Figma's {status, err}", async () => {
    const response = await fetch(`${baseUrl}/v1/files/abc/meta`, { headers: { 'x-figma-token': 'figd_good' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ status: 404, err: 'No file abc' });
  });
});
