/**
 * Shelf end to end (issue 20): a team's own API (test/fixtures/shelf/openapi.yaml: bearer auth, its own Error
 * {code, message}, a discriminated oneOf, an expand[] deepObject array, free-form objects, {items, next_cursor} pages,
 * a `+` in its server URL) generated as a project of its own (runtimes by package name), compiled strictly with the
 * team's handlers and client code, served by the scaffold, called with the generated client (bearer sent, no Paygate
 * header, typed errors) and checked by `paygate contract --spec`; the same check against a deliberately off-spec
 * handler fails naming the operation and the JSON pointer.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApi, type ApiCheckReport } from '../../packages/contract-tests/src/spec-check/index.js';
import { runCli } from '../../generators/src/cli/main.js';
import { writeFiles } from '../../generators/src/cli/generate.js';
import { generate } from '../../generators/src/pipeline.js';
import { loadOpenApi } from '../../generators/src/parse/openapi.js';
import { ROOT } from '../generators/fixtures.js';

const run = promisify(execFile);
const SPEC = 'test/fixtures/shelf/openapi.yaml';
// inside the repository so vitest transforms the generated TypeScript; `test/fixtures/**/out` is git- and tsc-ignored
const DIR = path.join(ROOT, 'test/fixtures/shelf/out', `e2e-${process.pid}`);
const TOKEN = 'shelf-token-1';

/** The team's server: handlers typed by the generated contract, bearer checked by the authenticate hook. */
const APP = `import { createApiApp } from '@paygate/server';
import { apiDocument, operations, securitySchemes } from './generated/contract/index.js';
import type { Handlers } from './generated/server/handlers.gen.js';
import { requestValidators } from './generated/server/request-validators.gen.js';

type Item = Extract<Awaited<ReturnType<Handlers['getItem']>>, { status: 200 }>['body'];

export function createShelfApp(options: { offSpec?: boolean } = {}) {
  const items = new Map<string, Item>();
  const handlers: Handlers = {
    async getHealth() {
      return { status: 200, body: { status: 'ok' } };
    },
    async listItems() {
      return { status: 200, body: { items: [...items.values()], next_cursor: null } };
    },
    async createItem(req) {
      const id = \`itm_\${String(items.size + 1).padStart(8, '0')}\`;
      const item: Item = req.body.kind === 'book'
        ? { kind: 'book', id, title: req.body.title, metadata: req.body.metadata ?? {} }
        : { kind: 'magazine', id, title: req.body.title, issue: req.body.issue };
      items.set(id, item);
      return { status: 201, body: item, headers: { Location: \`/items/\${id}\` } };
    },
    async getItem(req) {
      const item = items.get(req.params.item_id);
      if (item === undefined) return { status: 404, body: { code: 'not_found', message: 'No such item' } };
      // the deliberate mistake: a title that is a number (cast past the compiler, as a bug in JavaScript would be)
      if (options.offSpec === true) return { status: 200, body: { ...item, title: 42 as unknown as string } };
      return { status: 200, body: item };
    },
    async deleteItem(req) {
      if (!items.delete(req.params.item_id)) return { status: 404, body: { code: 'not_found', message: 'No such item' } };
      return { status: 204 };
    },
  };
  return createApiApp<Handlers>(
    { apiDocument, operations, securitySchemes, requestValidators },
    {
      handlers,
      validateResponses: false, // the checker, not the scaffold, must catch the off-spec body
      // one authenticator per scheme the spec declares; its 401 answers come in Shelf's own Error shape
      authenticators: { bearerAuth: ({ credential }) => (credential === '${TOKEN}' ? { user: 'team' } : undefined) },
    },
  );
}
`;

/** The team's client code: compiles only if auth is typed by scheme and errors by the declared schema. */
const USE = `import { createShelfClient, type ShelfClientOptions } from './generated/client/index.js';

export function shelf(baseUrl: string, fetchImpl: typeof fetch) {
  return createShelfClient({ baseUrl, fetch: fetchImpl, maxRetries: 0, auth: { bearerAuth: () => '${TOKEN}' } });
}

export async function missingItemCode(baseUrl: string, fetchImpl: typeof fetch): Promise<string> {
  const result = await shelf(baseUrl, fetchImpl).books.getItem('itm_missing00');
  if (result.ok) return 'found';
  // result.error is Shelf's own Error {code, message} (or the synthesised unexpected-response error)
  return 'code' in result.error ? result.error.code : result.error.error.code;
}

// @ts-expect-error Shelf declares bearerAuth only: no clientId, no ClientId scheme
export const wrong: ShelfClientOptions = { baseUrl: 'http://x', clientId: 'id' };
`;

/** What the test reads of use.ts (the generated types live in the temp project, compiled by its own tsc run). */
interface UseModule {
  shelf(
    baseUrl: string,
    fetchImpl: typeof fetch,
  ): {
    meta: { getHealth(): Promise<unknown> };
    books: { createItem(body: { kind: 'book'; title: string; metadata?: Record<string, unknown> }): Promise<unknown> };
  };
  missingItemCode(baseUrl: string, fetchImpl: typeof fetch): Promise<string>;
}

let report: ApiCheckReport | undefined;
const servers: Server[] = [];

async function listen(offSpec: boolean): Promise<string> {
  const mod = (await import(/* @vite-ignore */ path.join(DIR, 'app.ts'))) as {
    createShelfApp: (o: { offSpec?: boolean }) => import('express').Express;
  };
  const server = mod.createShelfApp({ offSpec }).listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await mkdir(DIR, { recursive: true });
  const result = await generate({
    rootDir: ROOT,
    openapi: SPEC,
    asyncapi: null,
    lint: 'report',
    targets: ['contract', 'server', 'client'],
    out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
    contractImport: 'relative',
    runtimeImport: 'package',
  });
  await writeFiles(DIR, result.files);
  await writeFile(path.join(DIR, 'app.ts'), APP);
  await writeFile(path.join(DIR, 'use.ts'), USE);
  await writeFile(path.join(DIR, 'package.json'), JSON.stringify({ name: 'shelf-e2e', private: true, type: 'module' }));
  await writeFile(
    path.join(DIR, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.base.json'),
      compilerOptions: { noEmit: true, types: ['node'], skipLibCheck: true, customConditions: ['source'] },
      include: ['generated', 'app.ts', 'use.ts'],
    }),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(DIR, { recursive: true, force: true });
});

describe('Shelf: a non-Paygate API end to end', () => {
  it('generates and compiles strictly with the team handlers and client code', async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const outcome = await run(process.execPath, [tsc, '-p', path.join(DIR, 'tsconfig.json')]).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(outcome).toBe('');
  }, 120_000);

  it('the generated client sends the bearer token, no Paygate header, and types Shelf errors', async () => {
    const baseUrl = await listen(false);
    const sent: Request[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(request.clone());
      return fetch(request);
    };
    const use = (await import(/* @vite-ignore */ path.join(DIR, 'use.ts'))) as UseModule;
    const client = use.shelf(baseUrl, recording);
    const health = await client.meta.getHealth();
    const created = await client.books.createItem({ kind: 'book', title: 'Dune', metadata: { shelf: 'A' } });
    expect(health).toMatchObject({ ok: true, data: { status: 'ok' } });
    expect(created).toMatchObject({ ok: true, status: 201, data: { kind: 'book', title: 'Dune' } });
    expect(await use.missingItemCode(baseUrl, recording)).toBe('not_found');

    expect(sent.map((r) => r.headers.get('authorization'))).toEqual([null, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    for (const r of sent) {
      const names = [...r.headers.keys()];
      expect(
        names.filter((n) => ['x-client-id', 'x-client-secret', 'x-paygate-client', 'x-merchant-id', 'idempotency-key'].includes(n)),
      ).toEqual([]);
    }
  });

  it('paygate contract --spec: the deployment conforms (coverage of every operation)', async () => {
    const baseUrl = await listen(false);
    const { document } = await loadOpenApi({ input: path.join(ROOT, SPEC), cwd: ROOT, lint: 'skip' });
    report = await checkApi({ document, baseUrl, auth: { bearerAuth: TOKEN } });
    expect(report.failures).toEqual([]);
    const seen = Object.fromEntries(
      report.coverage.map((c) => [
        c.operationId,
        Object.entries(c.statuses)
          .filter(([, n]) => n > 0)
          .map(([s]) => s),
      ]),
    );
    expect(seen).toMatchObject({
      getHealth: ['200'],
      createItem: expect.arrayContaining(['201', '400', '401']),
      getItem: expect.arrayContaining(['200', '401']),
    });
    // the same through the command line, with the credential from the environment and a JUnit report
    const out: string[] = [];
    const err: string[] = [];
    process.env['PAYGATE_AUTH_BEARERAUTH'] = TOKEN;
    try {
      const code = await runCli(['contract', '--spec', SPEC, '--base-url', baseUrl, '--junit', path.join(DIR, 'junit.xml')], {
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
        cwd: ROOT,
      });
      expect({ code, err: err.join('') }).toMatchObject({ code: 0 });
    } finally {
      delete process.env['PAYGATE_AUTH_BEARERAUTH'];
    }
    expect(out.join('')).toMatch(/createItem\s+POST \/items\s+201x/);
  }, 120_000);

  it('an off-spec handler fails, naming the operation and the JSON pointer', async () => {
    const baseUrl = await listen(true);
    const { document } = await loadOpenApi({ input: path.join(ROOT, SPEC), cwd: ROOT, lint: 'skip' });
    const failed = await checkApi({ document, baseUrl, auth: { bearerAuth: TOKEN } });
    expect(failed.ok).toBe(false);
    const schemaFailures = failed.failures.filter((f) => f.check === 'response_schema_conformance');
    expect(schemaFailures.map((f) => f.operationId)).toContain('getItem');
    const getItem = schemaFailures.find((f) => f.operationId === 'getItem')!;
    expect(getItem.pointer).toBe('#/paths/~1items~1{item_id}/get/responses/200/content/application~1json/schema');
    expect(getItem.message).toMatch(/body\/title must be string \(schema #\/components\/schemas\/Book\/properties\/title\/type\)/);
  }, 120_000);
});
