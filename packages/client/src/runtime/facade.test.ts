import createClient, { defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  call,
  createCaller,
  init,
  operation,
  sendableUrl,
  toFormData,
  toUrlEncoded,
  type Caller,
  type FetchInit,
  type OperationMeta,
} from './facade.js';
import { readResponse, type ParseAs } from './transport.js';
import type { PaygateResult } from './result.js';

describe('facade helpers (what client.gen.ts calls)', () => {
  // D195: a generated method is operation(send, meta, method, path, pathNames, hasBody, hasQuery, serializer?, parseAs?)
  // called with (path params..., body?, query?, opts?): it must send what init(...) of those arguments sends.
  const META: OperationMeta = { security: [], errors: {} };
  const opts = { headers: { 'X-Merchant-ID': 'm1' }, signal: new AbortController().signal };
  it.each([
    ['no argument', [], false, false, undefined, undefined, [], init(undefined, undefined, undefined)],
    ['options only', [], false, false, undefined, undefined, [opts], init(undefined, undefined, opts)],
    [
      'two path params',
      ['owner', 'repo'],
      false,
      false,
      undefined,
      undefined,
      ['o', 'r', opts],
      init({ owner: 'o', repo: 'r' }, undefined, opts),
    ],
    ['body', [], true, false, undefined, undefined, [{ a: 1 }], init(undefined, undefined, undefined, { a: 1 })],
    ['no body given', ['id'], true, false, undefined, undefined, ['x'], init({ id: 'x' }, undefined, undefined, undefined)],
    ['query', [], false, true, undefined, undefined, [{ page: 2 }, opts], init(undefined, { page: 2 }, opts)],
    [
      'path, body, query, options, serializer and parseAs',
      ['order_id'],
      true,
      true,
      toUrlEncoded,
      'text',
      ['OD1', { a: 'b' }, { expand: ['x'] }, opts],
      init({ order_id: 'OD1' }, { expand: ['x'] }, opts, { a: 'b' }, toUrlEncoded as never, 'text'),
    ],
  ] as const)('operation: %s', (_name, pathNames, hasBody, hasQuery, serializer, parseAs, args, expected) => {
    const sent: unknown[][] = [];
    const send = ((...call: unknown[]) => {
      sent.push(call);
      return Promise.resolve({ ok: true });
    }) as unknown as Caller;
    const method = operation(send, META, 'POST', '/x/{id}', pathNames, hasBody, hasQuery, serializer as never, parseAs) as (
      ...a: unknown[]
    ) => Promise<unknown>;
    void method(...args);
    void method(...args);
    expect(sent).toEqual([
      [META, 'POST', '/x/{id}', expected],
      [META, 'POST', '/x/{id}', expected],
    ]);
    // each call builds its own path object
    if (pathNames.length > 0) expect((sent[0]![3] as FetchInit).params.path).not.toBe((sent[1]![3] as FetchInit).params.path);
  });

  it('init: params always, body / serializer / parseAs / signal only when given', () => {
    expect(init({ order_id: 'OD1' }, undefined, undefined) as FetchInit).toEqual({
      params: { path: { order_id: 'OD1' }, query: undefined, header: undefined },
    });
    const signal = new AbortController().signal;
    const value = init(
      undefined,
      { page: 2 },
      { headers: { 'X-Merchant-ID': '1' }, signal },
      { a: 1 },
      toFormData as never,
      'text',
    ) as FetchInit;
    expect(value).toEqual({
      params: { path: undefined, query: { page: 2 }, header: { 'X-Merchant-ID': '1' } },
      body: { a: 1 },
      bodySerializer: toFormData,
      parseAs: 'text',
      signal,
    });
  });

  it.each([
    [
      'strings and numbers',
      { a: 'x', n: 1 },
      [
        ['a', 'x'],
        ['n', '1'],
      ],
    ],
    [
      'arrays repeat the field',
      { tag: ['a', 'b'] },
      [
        ['tag', 'a'],
        ['tag', 'b'],
      ],
    ],
    ['null and undefined are left out', { a: null, b: undefined, c: 'y' }, [['c', 'y']]],
  ])('toUrlEncoded / toFormData: %s', (_name, body, pairs) => {
    expect([...toUrlEncoded(body as Record<string, unknown>)]).toEqual(pairs);
    expect([...toFormData(body as Record<string, unknown>)]).toEqual(pairs);
  });

  it('toFormData keeps Blobs as file parts', async () => {
    const form = toFormData({ file: new Blob(['%PDF'], { type: 'application/pdf' }), document_type: 'invoice' });
    const file = form.get('file');
    expect(file).toBeInstanceOf(Blob);
    expect(await (file as Blob).text()).toBe('%PDF');
  });

  it('call: the openapi-fetch response as a result typed by the error codes', async () => {
    const ok = await call<{ id: string }, 'ERR_X'>(Promise.resolve({ data: { id: '1' }, response: new Response('{}', { status: 200 }) }));
    expectTypeOf(ok).toEqualTypeOf<PaygateResult<{ id: string }, 'ERR_X'>>();
    expect(ok).toMatchObject({ ok: true, status: 200, data: { id: '1' } });
    const error = { success: false, error: { code: 'ERR_X', message: 'm' } };
    const failed = await call<never, 'ERR_X'>(Promise.resolve({ error, response: new Response('{}', { status: 404 }) }));
    expect(failed).toMatchObject({ ok: false, status: 404, error });
  });
});

describe('createCaller sends fetch(url, init) itself (D152)', () => {
  const META: OperationMeta = { security: [['bearerAuth']], errors: { '404': true } };
  const KEYED: OperationMeta = { security: [], errors: {}, idempotencyKey: { name: 'Idempotency-Key', maxLength: 255 } };
  const SCHEMES = { bearerAuth: { type: 'http', scheme: 'bearer' } } as const;

  async function withDefaultFetch<T>(
    answers: Response[],
    run: (seen: { input: unknown; init: RequestInit | undefined }[]) => Promise<T>,
  ): Promise<T> {
    const seen: { input: unknown; init: RequestInit | undefined }[] = [];
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ input, init });
      return answers.shift()!;
    });
    try {
      return await run(seen);
    } finally {
      spy.mockRestore();
    }
  }

  it('one fetch(url, init) per call: URL as openapi-fetch builds it, headers a plain record, static < credentials < per call', async () => {
    await withDefaultFetch([Response.json({ id: 1 })], async (seen) => {
      const send = createCaller(SCHEMES, {
        transport: { baseUrl: 'https://api.test/v1/', headers: { 'X-Static': 's', 'X-Other': 'o' } },
        auth: { bearerAuth: 'tok' },
      });
      const result = await send<{ id: number }, never>(
        META,
        'GET',
        '/books/{id}',
        init({ id: 'b 1' }, { page: 2, tag: ['a', 'b'] }, { headers: { 'x-other': 'per-call' } }),
      );
      expect(result).toMatchObject({ ok: true, status: 200, data: { id: 1 } });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.input).toBe('https://api.test/v1/books/b%201?page=2&tag=a&tag=b');
      expect(seen[0]!.init).toEqual({
        method: 'GET',
        headers: { 'X-Static': 's', Authorization: 'Bearer tok', 'x-other': 'per-call' },
        retryable: true,
      });
    });
  });

  it('a POST with its declared key is re-sent with the same init (same key, same body); PATCH is not re-sent', async () => {
    const unavailable = () => Response.json({ code: 'x' }, { status: 503, headers: { 'retry-after': '0' } });
    await withDefaultFetch([unavailable(), Response.json({ id: 2 }, { status: 201 }), unavailable()], async (seen) => {
      const sleep = vi.fn(async (_ms: number) => undefined);
      const send = createCaller(SCHEMES, { transport: { baseUrl: 'https://api.test', sleep }, idempotencyKey: () => 'k-1' });
      const created = await send<{ id: number }, never>(KEYED, 'POST', '/books', init(undefined, undefined, undefined, { title: 'Dune' }));
      expect(created).toMatchObject({ ok: true, status: 201, data: { id: 2 } });
      expect(seen).toHaveLength(2);
      expect(seen[1]!.init).toBe(seen[0]!.init);
      expect(seen[0]!.init).toMatchObject({
        method: 'POST',
        body: '{"title":"Dune"}',
        headers: { 'Idempotency-Key': 'k-1', 'Content-Type': 'application/json' },
      });
      expect(sleep).toHaveBeenCalledTimes(1);
      const patched = await send<never, never>(
        { security: [], errors: {} },
        'PATCH',
        '/books',
        init(undefined, undefined, undefined, { title: 'x' }),
      );
      expect(patched.status).toBe(503);
      expect(seen).toHaveLength(3);
    });
  });

  it('a custom fetch gets a Request per attempt; form bodies get the Content-Type fetch derives, not JSON', async () => {
    const seen: Request[] = [];
    const send = createCaller(SCHEMES, {
      transport: {
        baseUrl: 'https://api.test',
        fetch: async (input) => {
          seen.push(input as Request);
          return new Response(null, { status: 204 });
        },
      },
    });
    await send({ security: [], errors: {} }, 'POST', '/form', init(undefined, undefined, undefined, { a: 'x' }, toUrlEncoded as never));
    await send(
      { security: [], errors: {} },
      'POST',
      '/multi',
      init(undefined, undefined, { headers: { 'X-Trace': 't' } }, { a: 'x' }, toFormData as never),
    );
    expect(seen.every((r) => r instanceof Request)).toBe(true);
    expect(seen[0]!.headers.get('content-type')).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(await seen[0]!.text()).toBe('a=x');
    expect(seen[1]!.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[1]!.headers.get('x-trace')).toBe('t');
  });

  it('a per-call null removes a credential; the signal is passed on', async () => {
    await withDefaultFetch([Response.json({})], async (seen) => {
      const signal = new AbortController().signal;
      const send = createCaller(SCHEMES, { transport: { baseUrl: 'https://api.test' }, auth: { bearerAuth: 'tok' } });
      await send(META, 'GET', '/books', init(undefined, undefined, { headers: { authorization: null } as never, signal }));
      expect(seen[0]!.init?.headers).toEqual({});
      expect(seen[0]!.init?.signal).toBe(signal);
    });
  });
});

describe('readResponse reads a response as openapi-fetch does', () => {
  const cases: [string, () => Response, string, ParseAs | undefined][] = [
    [
      '200 JSON with a length',
      () => new Response('{"a":1}', { headers: { 'content-length': '7', 'content-type': 'application/json' } }),
      'GET',
      undefined,
    ],
    ['200 JSON without a length', () => new Response('{"a":[1,2]}', { headers: { 'content-type': 'application/json' } }), 'GET', undefined],
    ['200 empty body without a length', () => new Response('', { status: 200 }), 'GET', undefined],
    ['204', () => new Response(null, { status: 204 }), 'DELETE', undefined],
    ['200 Content-Length 0', () => new Response('', { headers: { 'content-length': '0' } }), 'GET', undefined],
    ['HEAD', () => new Response(null, { status: 200 }), 'HEAD', undefined],
    ['200 text', () => new Response('<html>', { headers: { 'content-type': 'text/html' } }), 'GET', 'text'],
    ['404 JSON error', () => new Response('{"code":"nf"}', { status: 404 }), 'GET', undefined],
    ['502 HTML error', () => new Response('<html>bad gateway</html>', { status: 502 }), 'GET', undefined],
    ['404 empty', () => new Response('', { status: 404, headers: { 'content-length': '0' } }), 'GET', undefined],
  ];
  it.each(cases)('%s', async (_name, make, method, parseAs) => {
    const client = createClient<Record<string, never>>({ baseUrl: 'https://api.test', fetch: async () => make() });
    const viaOpenApiFetch = await (
      client as unknown as { request(m: string, p: string, i: object): Promise<{ data?: unknown; error?: unknown }> }
    ).request(method, '/x', parseAs ? { parseAs } : {});
    const ours = await readResponse(make(), method, parseAs);
    expect({ data: ours.data, error: ours.error, keys: Object.keys(ours).sort() }).toEqual({
      data: viaOpenApiFetch.data,
      error: viaOpenApiFetch.error,
      keys: Object.keys(viaOpenApiFetch).sort(),
    });
  });
});

describe('path parameters are written as openapi-fetch writes them', () => {
  it.each([
    ['plain', '/books/{id}', { id: 'b 1/é?#' }],
    ['two and repeated', '/a/{x}/b/{y}/c/{x}', { x: 'p', y: 7 }],
    ['missing value keeps the placeholder', '/a/{x}/b/{y}', { x: 'p' }],
    ['a $ pattern in the value', '/a/{x}', { x: "$&-$'-$1" }],
    ['label style', '/a/{.x}', { x: 'v' }],
    ['matrix, exploded array', '/a/{;x*}', { x: ['1', '2'] }],
    ['array value', '/a/{x}', { x: ['1', '2'] }],
    ['object value', '/a/{x}', { x: { k: 'v' } }],
  ])('%s', async (_name, path, values) => {
    const seen: string[] = [];
    const send = createCaller(
      {},
      {
        transport: {
          baseUrl: 'https://api.test/v1',
          fetch: async (input) => (seen.push((input as Request).url), new Response(null, { status: 204 })),
        },
      },
    );
    await send({ security: [], errors: {} }, 'GET', path, init(values, undefined, undefined));
    await send({ security: [], errors: {} }, 'GET', path, init(values, undefined, undefined)); // the parsed template, reused
    const expected = new Request(defaultPathSerializer(`https://api.test/v1${path}`, values)).url;
    expect(seen).toEqual([expected, expected]);
  });

  it.each<[string, OperationMeta['path'], unknown, string]>([
    ['matrix, exploded object', { c: { style: 'matrix', explode: true } }, { R: '100', G: '200' }, '/a/;R=100;G=200/b'],
    ['label array', { c: { style: 'label' } }, ['x', 'y'], '/a/.x,y/b'],
    ['simple, exploded object', { c: { explode: true } }, { R: '1' }, '/a/R=1/b'],
  ])(
    'a declared style in the operation\'s meta is written (D413, "Object path parameters read by their style"): %s',
    async (_name, styles, value, path) => {
      const seen: string[] = [];
      const send = createCaller(
        {},
        {
          transport: {
            baseUrl: 'https://api.test',
            fetch: async (input) => (seen.push((input as Request).url), new Response(null, { status: 204 })),
          },
        },
      );
      const meta: OperationMeta = { security: [], errors: {}, ...(styles === undefined ? {} : { path: styles }) };
      await send(meta, 'GET', '/a/{c}/b', init({ c: value }, undefined, undefined));
      await send(meta, 'GET', '/a/{c}/b', init({ c: value }, undefined, undefined)); // the marked template, reused
      expect(seen).toEqual([`https://api.test${path}`, `https://api.test${path}`]);
    },
  );

  it('an object value as the simple style writes it, unexploded: what the scaffold reads by default (D413, "Object path parameters read by their style")', async () => {
    const seen: string[] = [];
    const send = createCaller(
      {},
      {
        transport: {
          baseUrl: 'https://api.test',
          fetch: async (input) => (seen.push((input as Request).url), new Response(null, { status: 204 })),
        },
      },
    );
    await send(
      { security: [], errors: {} },
      'DELETE',
      '/Plugins/{version}',
      init({ version: { Major: 10, Minor: 7, Tag: 'a b' } }, undefined, undefined),
    );
    expect(seen).toEqual(['https://api.test/Plugins/Major,10,Minor,7,Tag,a%20b']);
  });
});

describe('sendableUrl: templates with a query part or a fragment (D410)', () => {
  it.each([
    ['/tags/arn1#tagKeys', 'tagKeys=a', '/tags/arn1?tagKeys=a'],
    ['/#X-Amz-Target=Svc.Op', '', '/'],
    ['/search/articles?query={query}', 'query=x%20y', '/search/articles?query=x%20y'],
    ['/rides?page=2&per_page=10', '', '/rides?page=2&per_page=10'],
    ['/rides?page=2&per_page={per_page}', 'lang=en', '/rides?page=2&lang=en'],
    ['/items?kind=book', 'limit=5', '/items?kind=book&limit=5'],
  ])('%s + %s -> %s', (filled, search, url) => {
    expect(sendableUrl(filled, search)).toBe(url);
  });
});
