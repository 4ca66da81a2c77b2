import { describe, expect, it, vi } from 'vitest';
import { paginate, type Page } from './paginate.js';
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
