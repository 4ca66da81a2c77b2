import { describe, expect, it } from 'vitest';
import { checkApi, formatCoverage } from './check-api.js';
import { toJUnit } from './junit.js';
import { negativeOf, sampleOf } from './samples.js';

/** A tiny API: a public GET, and a POST secured by an API key in a query parameter, with its own error shape. */
const DOC = {
  openapi: '3.0.3',
  info: { title: 'Notes', version: '1' },
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } },
    schemas: {
      Problem: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
      Note: {
        type: 'object',
        required: ['id', 'text'],
        properties: { id: { type: 'string', pattern: '^n_[0-9]{4}$' }, text: { type: 'string', nullable: true } },
      },
    },
  },
  paths: {
    '/notes': {
      post: {
        operationId: 'createNote',
        security: [{ key: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
        },
        responses: {
          '201': {
            description: 'ok',
            headers: { Location: { schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } },
          },
          '4XX': { description: 'bad', content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
    },
    '/notes/{id}': {
      get: {
        operationId: 'getNote',
        security: [],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^n_[0-9]{4}$' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
          '404': { description: 'none', content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
    },
  },
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A correct implementation; `mistake` lets a test break one thing. */
function notesApi(mistake?: 'text-number' | 'accepts-garbage' | 'open') {
  const seen: string[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    seen.push(`${method} ${url.pathname}${url.search}`);
    if (method === 'POST' && url.pathname === '/v1/notes') {
      if (url.searchParams.get('api_key') !== 'k1' && mistake !== 'open') return json(401, { title: 'no key' });
      const body: unknown = JSON.parse(String(init?.body));
      if (
        mistake !== 'accepts-garbage' &&
        (typeof body !== 'object' || body === null || Array.isArray(body) || typeof (body as { text?: unknown }).text !== 'string')
      )
        return json(400, { title: 'bad body' });
      return json(201, { id: 'n_0001', text: 'hello' }, { Location: '/v1/notes/n_0001' });
    }
    if (method === 'GET' && /^\/v1\/notes\/n_\d{4}$/.test(url.pathname)) {
      return json(200, { id: 'n_0001', text: mistake === 'text-number' ? 7 : null });
    }
    return json(404, { title: 'no route' });
  };
  return { seen, fetchImpl };
}

describe('checkApi (D125)', () => {
  it('a conforming API passes: positive, negative, unauthenticated and Location follow-up', async () => {
    const api = notesApi();
    const report = await checkApi({ document: DOC, baseUrl: 'https://notes.test/v1', auth: { key: 'k1' }, fetch: api.fetchImpl });
    expect(report.failures).toEqual([]);
    expect(api.seen).toEqual([
      'POST /v1/notes?api_key=k1', // positive, the key in the query as the scheme says
      'GET /v1/notes/n_0001', // the Location header, followed
      'POST /v1/notes?api_key=k1', // negative body
      'POST /v1/notes', // without credentials
      expect.stringMatching(/^GET \/v1\/notes\/n_\d{4}$/), // positive, a path id built from the pattern
    ]);
    expect(report.cases.map((c) => c.check)).toEqual(['positive', 'stateful', 'negative', 'unauthenticated', 'positive']);
    expect(formatCoverage(report)).toMatch(/createNote\s+POST \/notes\s+201x1 4XXx2/);
  });

  it.each([
    [
      'an off-spec body (3.0 nullable honoured, a number is not)',
      'text-number',
      'response_schema_conformance',
      'getNote',
      '#/paths/~1notes~1{id}/get/responses/200/content/application~1json/schema',
      /body\/text must be string,null \(schema #\/components\/schemas\/Note\/properties\/text\/type\)/,
    ],
    [
      'negative data accepted',
      'accepts-garbage',
      'negative_data',
      'createNote',
      '#/paths/~1notes/post',
      /negative data was answered 201, not a 4xx/,
    ],
    [
      'no credentials accepted',
      'open',
      'unauthenticated_data',
      'createNote',
      '#/paths/~1notes/post',
      /without credentials was answered 201/,
    ],
  ] as const)('fails on %s, naming the operation and the pointer', async (_name, mistake, check, operationId, pointer, message) => {
    const report = await checkApi({
      document: DOC,
      baseUrl: 'https://notes.test/v1',
      auth: { key: 'k1' },
      fetch: notesApi(mistake).fetchImpl,
    });
    const failure = report.failures.find((f) => f.check === check);
    expect(failure).toMatchObject({ operationId, pointer });
    expect(failure?.message).toMatch(message);
    expect(toJUnit(report)).toContain(`<failure message="${check} at ${pointer}">`);
  });

  it('waits out 429 per Retry-After, then gives up with a message to raise the rate limit', async () => {
    const waits: number[] = [];
    let calls = 0;
    const limited: typeof fetch = async () =>
      ++calls <= 2 ? json(429, { title: 'slow down' }, { 'Retry-After': '2' }) : json(200, { id: 'n_0001', text: null });
    const ok = await checkApi({
      document: DOC,
      baseUrl: 'https://notes.test/v1',
      fetch: limited,
      checks: ['positive'],
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toEqual([2000, 2000]);
    expect(ok.cases.find((c) => c.operationId === 'getNote')?.failures).toEqual([]);
    const always: typeof fetch = async () => json(429, { title: 'slow down' }, { 'Retry-After': '20' });
    const stuck = await checkApi({
      document: DOC,
      baseUrl: 'https://notes.test/v1',
      fetch: always,
      checks: ['positive'],
      sleep: async () => undefined,
      maxRateLimitWaitMs: 30_000,
    });
    expect(stuck.failures[0]?.message).toMatch(
      /rate limited \(429\) for more than 30 s: raise the deployment's rate limit .*PAYGATE_RATE_LIMIT/,
    );
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
