import { describe, expect, it, vi } from 'vitest';
import {
  pages as pageHelper,
  paginate,
  PaginationError,
  walkPages,
  type Page,
  type PageQuery,
  type PageStrategy,
  type PagingOptions,
} from './paginate.js';
import { PaygateApiError, type ApiResult } from './result.js';

const BASE = 'https://api.test/v1/refunds?page_size=2';
const pages: Page<{ id: string }>[] = [
  { count: 5, page: 1, page_size: 2, previous: null, next: `${BASE}&page=2`, results: [{ id: 'RF1' }, { id: 'RF2' }] },
  { count: 5, page: 2, page_size: 2, previous: `${BASE}&page=1`, next: `${BASE}&page=3`, results: [{ id: 'RF3' }, { id: 'RF4' }] },
  { count: 5, page: 3, page_size: 2, previous: `${BASE}&page=2`, next: null, results: [{ id: 'RF5' }] },
];
const ok = <T>(data: T): ApiResult<T, unknown> => ({ ok: true, status: 200, data, response: new Response(null, { status: 200 }) });

describe('paginate', () => {
  it('follows pages until next is null, lazily', async () => {
    const fetchPage = vi.fn(async (page: number) => ok(pages[page - 1]!));
    const it = paginate(fetchPage);
    expect(fetchPage).not.toHaveBeenCalled();
    const first = await it.next();
    expect(first.value).toEqual({ id: 'RF1' });
    expect(fetchPage).toHaveBeenCalledTimes(1);

    const rest: string[] = [];
    for await (const item of it) rest.push(item.id);
    expect(rest).toEqual(['RF2', 'RF3', 'RF4', 'RF5']);
    expect(fetchPage.mock.calls.map(([p]) => p)).toEqual([1, 2, 3]);
  });

  it("hands each request the query of the previous page's next link (a keyset cursor)", async () => {
    const cursorPages: Page<{ id: string }>[] = [
      { count: 3, page: 1, page_size: 2, previous: null, next: `${BASE}&page=2&cursor=abc`, results: [{ id: 'RF1' }, { id: 'RF2' }] },
      { count: 3, page: 2, page_size: 2, previous: `${BASE}&page=1&cursor=xyz`, next: null, results: [{ id: 'RF3' }] },
    ];
    const fetchPage = vi.fn(async (page: number, _next: Readonly<Record<string, string>>) => ok(cursorPages[page - 1]!));
    const ids: string[] = [];
    for await (const item of paginate(fetchPage)) ids.push(item.id);
    expect(ids).toEqual(['RF1', 'RF2', 'RF3']);
    expect(fetchPage.mock.calls.map(([, next]) => next)).toEqual([{}, { page_size: '2', page: '2', cursor: 'abc' }]);
  });

  it('can start at a later page and stops on an empty page', async () => {
    const fetchPage = vi.fn(async (page: number) =>
      ok(page === 2 ? pages[1]! : { ...pages[2]!, results: [], next: 'https://api.test/v1/refunds?page=4' }),
    );
    const ids: string[] = [];
    for await (const item of paginate(fetchPage, { startPage: 2 })) ids.push(item.id);
    expect(ids).toEqual(['RF3', 'RF4']);
    expect(fetchPage).toHaveBeenCalledTimes(2);
  });

  it('throws a typed PaygateApiError when a page fails', async () => {
    const fetchPage = async (page: number): Promise<ApiResult<Page<{ id: string }>, unknown>> =>
      page === 1
        ? ok(pages[0]!)
        : {
            ok: false,
            status: 429,
            error: { success: false, error: { code: 'ERR_RATE_429', message: 'Too many requests', details: { retry_after: '3' } } },
            response: new Response(null, { status: 429 }),
          };
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const item of paginate(fetchPage)) seen.push(item.id);
    } catch (err) {
      caught = err;
    }
    expect(seen).toEqual(['RF1', 'RF2']);
    expect(caught).toBeInstanceOf(PaygateApiError);
    const err = caught as PaygateApiError;
    expect(err.status).toBe(429);
    expect(err.code).toBe('ERR_RATE_429');
    expect(err.details).toEqual({ retry_after: '3' });
  });

  it('rejects an invalid startPage', async () => {
    await expect(paginate(async () => ok(pages[0]!), { startPage: 0 }).next()).rejects.toThrow(RangeError);
  });
});

describe('walkPages: bounded, typed errors (D227)', () => {
  type Body = { data?: unknown; next_cursor?: string | null };
  const cursor: PageStrategy = { strategy: 'cursor', items: ['data'], cursorParam: 'cursor', next: { in: 'body', path: ['next_cursor'] } };
  const serve = (bodies: Body[]) => vi.fn(async (_query: PageQuery) => ok<unknown>(bodies.shift() ?? { data: [] }));
  const collect = async (it: AsyncIterableIterator<unknown>): Promise<unknown[]> => {
    const out: unknown[] = [];
    for await (const x of it) out.push(x);
    return out;
  };

  it("sends the caller's query first, then each cursor, and stops where the strategy says", async () => {
    const call = serve([
      { data: [1, 2], next_cursor: 'c2' },
      { data: [3], next_cursor: null },
    ]);
    expect(await collect(walkPages(call, cursor, { q: 'x' }))).toEqual([1, 2, 3]);
    expect(call.mock.calls.map(([q]) => q)).toEqual([{ q: 'x' }, { q: 'x', cursor: 'c2' }]);
  });

  it.each<[string, Body[], number[], number]>([
    [
      'a repeated cursor (a request already sent)',
      [
        { data: [1], next_cursor: 'c2' },
        { data: [2], next_cursor: 'c2' },
      ],
      [1, 2],
      2,
    ],
    [
      'an empty page',
      [
        { data: [1], next_cursor: 'c2' },
        { data: [], next_cursor: 'c3' },
      ],
      [1],
      2,
    ],
    [
      'a page that repeats the one before (a server that clamps the position)',
      [
        { data: [1, 2], next_cursor: 'c2' },
        { data: [1, 2], next_cursor: 'c3' },
      ],
      [1, 2],
      2,
    ],
  ])('ends at %s without looping', async (_name, bodies, want, calls) => {
    const call = serve(bodies);
    expect(await collect(walkPages(call, cursor))).toEqual(want);
    expect(call).toHaveBeenCalledTimes(calls);
  });

  it('throws PaginationError (max-pages) after maxPages pages with more to come: never loops forever', async () => {
    let n = 0;
    const endless = vi.fn(async () => ok<unknown>({ data: [++n], next_cursor: `c${n}` }));
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const x of walkPages(endless, cursor, {}, { maxPages: 3 })) seen.push(x);
      })(),
    ).rejects.toMatchObject({ name: 'PaginationError', reason: 'max-pages' });
    expect(seen).toEqual([1, 2, 3]);
    expect(endless).toHaveBeenCalledTimes(3);
  });

  it('throws PaginationError, not a TypeError, on a 2xx without the items array (the Figma report)', async () => {
    const figma: PageStrategy = { strategy: 'nextLink', items: ['webhooks'], next: { in: 'body', path: ['pagination', 'next_page'] } };
    const call = async () => ok<unknown>({ webhooks: 'not a list', pagination: {} });
    await expect(collect(walkPages(call, figma))).rejects.toBeInstanceOf(PaginationError);
  });

  it("throws PaygateApiError carrying the API's own error body on a failed page", async () => {
    const call = vi
      .fn()
      .mockResolvedValueOnce(ok<unknown>({ data: [1], next_cursor: 'c2' }))
      .mockResolvedValueOnce({
        ok: false,
        status: 403,
        error: { status: 403, err: 'Invalid token' },
        response: new Response(null, { status: 403 }),
      });
    const seen: unknown[] = [];
    let caught: unknown;
    try {
      for await (const x of walkPages(call, cursor)) seen.push(x);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([1]);
    expect(caught).toBeInstanceOf(PaygateApiError);
    expect((caught as PaygateApiError).status).toBe(403);
    expect((caught as PaygateApiError).body).toEqual({ status: 403, err: 'Invalid token' });
  });

  it('rejects an invalid maxPages', async () => {
    await expect(walkPages(serve([]), cursor, {}, { maxPages: 0 }).next()).rejects.toThrow(RangeError);
  });

  it('pages(): the generated helper calls the method with its own arguments, the query replaced page by page', async () => {
    const method = vi.fn(async (_id: string, query: PageQuery, _opts: unknown) =>
      ok<unknown>(query.cursor === undefined ? { data: ['a'], next_cursor: 'c2' } : { data: ['b'], next_cursor: null }),
    );
    const listAll = pageHelper(method, cursor, 1) as (
      id: string,
      query?: PageQuery,
      opts?: unknown,
      paging?: PagingOptions,
    ) => AsyncIterableIterator<string>;
    const opts = { headers: { 'X-Trace': '1' } };
    expect(await collect(listAll('team_1', { limit: 2 }, opts))).toEqual(['a', 'b']);
    expect(method.mock.calls).toEqual([
      ['team_1', { limit: 2 }, opts],
      ['team_1', { limit: 2, cursor: 'c2' }, opts],
    ]);
  });
});
