import { describe, expect, it } from 'vitest';
import { checkApi } from './check-api.js';
import { formatCoverage } from './report-text.js';
import type { CheckApiOptions } from './types.js';
import { toJUnit } from './junit.js';
import { planChecks } from './plan.js';
import { negativeOf, sampleOf } from './samples.js';

/**
 * Notes: a tiny API of someone else's (3.0, its own error shape). createNote (API key in the query, an owner per key)
 * makes a note; getNote reads it by the id createNote answered (not the example's); deleteNote removes it. The POST
 * takes an Idempotency-Key; `X-Workspace` is optional in the spec but required by the API for the `admin` key (a
 * conditionally required input the checker learns from the documented 400).
 */
const DOC = {
  openapi: '3.0.3',
  info: { title: 'Notes', version: '1' },
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } },
    schemas: {
      Problem: {
        type: 'object',
        required: ['title'],
        properties: { title: { type: 'string' }, fields: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      Note: {
        type: 'object',
        required: ['id', 'text'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^n_[0-9]{4}$' },
          text: { type: 'string', nullable: true },
          colour: { type: 'string' },
        },
      },
    },
    responses: {
      Problem: { description: 'bad', content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    },
  },
  security: [{ key: [] }],
  paths: {
    '/notes': {
      post: {
        operationId: 'createNote',
        parameters: [
          { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 64 } },
          { name: 'X-Workspace', in: 'header', schema: { type: 'string', pattern: '^w[0-9]$' }, example: 'w1' },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['text'],
                additionalProperties: false,
                properties: { text: { type: 'string', maxLength: 20 } },
              },
              example: { text: 'hello' },
            },
          },
        },
        responses: {
          '201': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Problem' },
          '422': { $ref: '#/components/responses/Problem' },
        },
      },
    },
    '/notes/{note_id}': {
      get: {
        operationId: 'getNote',
        parameters: [
          { name: 'note_id', in: 'path', required: true, schema: { type: 'string', pattern: '^n_[0-9]{4}$' }, example: 'n_9999' },
        ],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Problem' },
          '404': { $ref: '#/components/responses/Problem' },
        },
      },
      delete: {
        operationId: 'deleteNote',
        parameters: [{ name: 'note_id', in: 'path', required: true, schema: { type: 'string', pattern: '^n_[0-9]{4}$' } }],
        responses: {
          '204': { description: 'gone' },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Problem' },
          '404': { $ref: '#/components/responses/Problem' },
        },
      },
    },
  },
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

type Mistake = 'text-number' | 'accepts-garbage' | 'open' | 'replay-runs-twice' | 'shared-notes' | 'still-there';

/** A correct implementation; `mistake` breaks one thing. Keys: k1 (owner alice), k2 (owner bob), admin (needs X-Workspace). */
function notesApi(mistake?: Mistake) {
  const seen: string[] = [];
  const notes = new Map<string, { text: string; owner: string }>();
  const replays = new Map<string, Response>();
  let next = 1;
  const owners: Record<string, string> = { k1: 'alice', k2: 'bob', admin: 'root' };
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    seen.push(`${method} ${url.pathname}`);
    const owner = owners[url.searchParams.get('api_key') ?? ''];
    if (owner === undefined && mistake !== 'open') return json(401, { title: 'no key' });
    if (method === 'POST' && url.pathname === '/v1/notes') {
      const workspace = headers.get('x-workspace');
      if ((owner === 'root' || workspace !== null) && !/^w[0-9]$/.test(workspace ?? ''))
        return json(400, { title: 'bad', fields: { 'X-Workspace': 'required for admin keys' } });
      const key = headers.get('idempotency-key');
      if (key && mistake !== 'replay-runs-twice') {
        if (replays.has(`${key} ${init?.body}`)) return replays.get(`${key} ${init?.body}`)!.clone();
        if ([...replays.keys()].some((k) => k.startsWith(`${key} `))) return json(422, { title: 'key reused with another request' });
      }
      let body: unknown;
      try {
        body = JSON.parse(String(init?.body));
      } catch {
        return json(400, { title: 'not json' });
      }
      const text = (body as { text?: unknown } | null)?.text;
      const valid =
        typeof body === 'object' &&
        body !== null &&
        !Array.isArray(body) &&
        Object.keys(body).every((k) => k === 'text') &&
        typeof text === 'string' &&
        text.length <= 20;
      if (!valid && mistake !== 'accepts-garbage') return json(400, { title: 'bad body' });
      const id = `n_${String(next++).padStart(4, '0')}`;
      notes.set(id, { text: String(text), owner: owner ?? 'anon' });
      const response = json(201, { id, text: mistake === 'text-number' ? 7 : String(text) });
      if (key) replays.set(`${key} ${init?.body}`, response.clone());
      return response;
    }
    const m = /^\/v1\/notes\/([^/]+)$/.exec(url.pathname);
    if (m) {
      if (!/^n_\d{4}$/.test(m[1]!)) return json(400, { title: 'bad id' });
      const note = notes.get(m[1]!);
      if (note === undefined || (note.owner !== owner && mistake !== 'shared-notes')) return json(404, { title: 'no such note' });
      if (method === 'DELETE') {
        if (mistake !== 'still-there') notes.delete(m[1]!);
        return new Response(null, { status: 204 });
      }
      if (method === 'GET') return json(200, { id: m[1], text: note.text });
      return json(405, { title: 'method' });
    }
    return json(404, { title: 'no route' });
  };
  return { seen, notes, fetchImpl };
}

const base = (mistake?: Mistake, extra: Partial<CheckApiOptions> = {}): CheckApiOptions => ({
  document: DOC,
  baseUrl: 'https://notes.test/v1',
  credentials: [
    { name: 'alice', auth: { key: 'k1' } },
    { name: 'bob', auth: { key: 'k2' } },
  ],
  tenants: ['bob'],
  fetch: notesApi(mistake).fetchImpl,
  sleep: async () => undefined,
  ...extra,
});

describe('checkApi: stateful, with nothing but credentials (D270-D279)', () => {
  it('a conforming API passes: created ids feed the by-id operations, every operation gets its 2xx, the run cleans up', async () => {
    const api = notesApi();
    const report = await checkApi({ ...base(), fetch: api.fetchImpl });
    expect(report.failures).toEqual([]);
    expect(report.coverage.map((c) => [c.operationId, c.outcome])).toEqual([
      ['createNote', 'passed'],
      ['getNote', 'passed'],
      ['deleteNote', 'passed'],
    ]);
    // the example id n_9999 is never needed: getNote reads what createNote made
    expect(report.cases.find((c) => c.operationId === 'getNote' && c.check === 'positive')?.request).toMatch(
      /^GET \/notes\/n_000\d\?api_key=k1$/,
    );
    const checks = new Set(report.cases.map((c) => c.check));
    for (const check of ['positive', 'negative', 'unauthenticated', 'idempotency', 'isolation', 'methods', 'stateful'])
      expect(checks, check).toContain(check);
    // bob (a tenant) was refused alice's note; after deleteNote the note is gone (use after free); notes made by the
    // run's own checks (idempotency, clean-up) are deleted at the end
    expect(report.cases.find((c) => c.check === 'isolation')?.status).toBe(404);
    expect(api.notes.size).toBe(0);
    expect(formatCoverage(report)).toMatch(/createNote\s+POST \/notes\s+201x\d+ 400x\d+ 401x\d+/);
  });

  it.each([
    [
      'an off-spec body (3.0 nullable honoured, a number is not)',
      'text-number',
      'response_schema_conformance',
      'createNote',
      /body\/text must be string,null \(schema #\/components\/schemas\/Note\/properties\/text\/type\)/,
    ],
    ['negative data accepted', 'accepts-garbage', 'negative_data_rejection', 'createNote', /negative data was answered 201, not a 4xx/],
    ['no credentials accepted', 'open', 'ignored_auth', 'createNote', /no credentials was answered 201/],
    [
      'an idempotent replay that runs twice',
      'replay-runs-twice',
      'idempotent_replay',
      'createNote',
      /got another body than the first: it ran twice/,
    ],
    ["a tenant reading another's note", 'shared-notes', 'tenant_isolation', 'getNote', /bob read what alice made \(answered 200\)/],
    ['a deleted note still readable', 'still-there', 'use_after_free', 'getNote', /was deleted and still answers 200/],
  ] as const)('fails on %s, naming the check and the operation', async (_name, mistake, check, operationId, message) => {
    const report = await checkApi(base(mistake));
    const failure = report.failures.find((f) => f.check === check);
    expect(failure, JSON.stringify(report.failures.map((f) => f.check))).toMatchObject({ operationId });
    expect(failure?.message).toMatch(message);
    expect(toJUnit(report)).toContain(`<failure message="${check} at `);
  });

  it('learns a conditionally required input from the documented 400 (X-Workspace for the admin key)', async () => {
    const report = await checkApi(base(undefined, { credentials: [{ name: 'admin', auth: { key: 'admin' } }], tenants: [] }));
    expect(report.failures).toEqual([]);
    const positives = report.cases.filter((c) => c.operationId === 'createNote' && c.check === 'positive').map((c) => c.status);
    expect(positives).toEqual([400, 201]);
  });

  it('waits out 429 per Retry-After, then gives up with a message to raise the rate limit', async () => {
    const waits: number[] = [];
    let calls = 0;
    const inner = notesApi().fetchImpl;
    const limited: typeof fetch = async (input, init) =>
      ++calls <= 2 ? json(429, { title: 'slow down' }, { 'Retry-After': '2' }) : inner(input, init);
    const ok = await checkApi({ ...base(), fetch: limited, checks: ['positive'], sleep: async (ms) => void waits.push(ms) });
    expect(waits.slice(0, 2)).toEqual([2000, 2000]);
    expect(ok.failures).toEqual([]);
    const always: typeof fetch = async () => json(429, { title: 'slow down' }, { 'Retry-After': '20' });
    const stuck = await checkApi({ ...base(), fetch: always, checks: ['positive'] });
    expect(stuck.failures[0]?.message).toMatch(
      /rate limited \(429\) for more than 30 s: raise the deployment's rate limit .*PAYGATE_RATE_LIMIT/,
    );
  });

  it('--include / --exclude: excluded operations are never sent', async () => {
    const api = notesApi();
    const report = await checkApi({ ...base(), fetch: api.fetchImpl, exclude: [{ kind: 'op', value: 'deleteNote' }] });
    expect(report.coverage.map((c) => c.operationId)).toEqual(['createNote', 'getNote']);
    expect(api.seen.filter((s) => s.startsWith('DELETE'))).toEqual([]);
  });

  it('a time bound per run stops it with a failure and a partial report', async () => {
    const slow: typeof fetch = async (input, init) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return notesApi().fetchImpl(input, init);
    };
    const report = await checkApi({ ...base(), fetch: slow, maxTimeMs: 50 });
    expect(report.timedOut).toBe(true);
    expect(report.failures.some((f) => f.check === 'time_bound')).toBe(true);
  });

  it('the dry run prints the plan: order, credential set, where each id comes from', () => {
    const plan = planChecks(base());
    expect(plan).toMatch(/1\. createNote\s+POST \/notes\s+as alice/);
    expect(plan).toMatch(/getNote\s+GET \/notes\/\{note_id\}\s+as alice\s+\(note_id <- createNote\)/);
    expect(plan).toMatch(/3\. deleteNote/);
    expect(plan).toMatch(/paygate-contract\.invalid/);
  });
});

describe('samples', () => {
  const deref = (n: unknown) => n as never;
  it.each([
    ['a pattern', { type: 'string', pattern: '^itm_[A-Za-z0-9]{8,32}$' }, /^itm_[A-Za-z0-9]{8,32}$/],
    ['a format', { type: 'string', format: 'email' }, /^ada@example\.com$/],
    ['a minimum', { type: 'integer', minimum: 5 }, 5],
    ['an example wins', { type: 'string', example: 'given' }, 'given'],
  ] as const)('sampleOf: %s', (_name, schema, expected) => {
    const value = sampleOf(schema as never, deref);
    if (expected instanceof RegExp) expect(String(value)).toMatch(expected);
    else expect(value).toBe(expected);
  });

  it.each([
    ['object -> array', { type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, []],
    ['string -> number', { type: 'string' }, 12345],
    ['integer -> string', { type: 'integer' }, 'not-a-number'],
    ['a oneOf of objects -> array', { oneOf: [{ type: 'object' }, { type: 'object' }] }, []],
    ['unconstrained -> none', {}, undefined],
  ] as const)('negativeOf: %s', (_name, schema, expected) => {
    expect(negativeOf(schema as never, deref)?.value).toEqual(expected);
  });
});
