import { nextPageQuery, firstPageQuery, itemsOf, PaginationError, type PageStrategy } from './paginate-strategy.js';
import type { PageQuery } from './paginate-link.js';
import { PaygateApiError, type ApiResult } from './result.js';

export { PaginationError, type PageStrategy, type PageTotal, type PageValue, type PaginationErrorReason } from './paginate-strategy.js';
export type { PageQuery } from './paginate-link.js';

/** Paygate's pagination envelope. */
export interface Page<T> {
  count: number;
  page: number;
  page_size: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** What {@link paginate} reads of a page: its items and the link to the next one (null or absent on the last). */
export type PageShape<T> = Pick<Page<T>, 'results'> & { next?: string | null };

/** Bounds of a page walk (every generated `...All` helper takes them as its last argument). */
export interface PagingOptions {
  /**
   * Pages read at most; a walk with more to come after that throws `PaginationError` (reason `max-pages`) rather
   * than loop on a server that never says "last page". Default 10,000.
   */
  maxPages?: number;
}

/** Options of {@link paginate}. */
export interface PaginateOptions extends PagingOptions {
  /** First page to request. Default 1. */
  startPage?: number;
}

/** Default of {@link PagingOptions.maxPages}. */
export const DEFAULT_MAX_PAGES = 10_000;

/** A request's query in one canonical form (keys sorted), to know a request already sent. */
function queryKey(query: PageQuery): string {
  return JSON.stringify(
    Object.keys(query)
      .filter((k) => query[k] !== undefined)
      .sort()
      .map((k) => [k, query[k]]),
  );
}

/** A page by its first and last item and length: the same twice in a row means the server sent the same page again. */
function pageSignature(items: readonly unknown[]): string {
  return JSON.stringify([items.length, items[0], items[items.length - 1]]);
}

/**
 * Every item of a list, one page after the other as `strategy` says (D227 page strategies as data in the client). Pages are fetched lazily, one at a time,
 * as you iterate. Bounded: it ends at the page the strategy says is the last, at an empty page, at a page that repeats
 * the one before, and at a request it already sent (a cursor or link seen before); after `maxPages` pages with more
 * to come it throws `PaginationError`. A failed page (non-2xx) throws `PaygateApiError` with the API's own error body;
 * a 2xx that is not the page the spec describes throws `PaginationError`, never a `TypeError`.
 */
export async function* walkPages<T>(
  call: (query: PageQuery) => Promise<ApiResult<unknown, unknown>>,
  strategy: PageStrategy,
  query: PageQuery = {},
  options: PagingOptions = {},
): AsyncIterableIterator<T> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) throw new RangeError(`maxPages must be an integer >= 1, got ${String(maxPages)}`);
  const first = firstPageQuery(strategy, query);
  const sent = new Set([queryKey(first)]);
  let current = first;
  let previous: string | undefined;
  let received = 0;
  for (let pages = 1; ; pages++) {
    const result = await call(current);
    if (!result.ok) throw new PaygateApiError(result);
    const items = itemsOf(result.data, strategy.items);
    if (items.length === 0) return;
    const signature = pageSignature(items);
    if (signature === previous) return;
    previous = signature;
    received += items.length;
    yield* items as T[];
    const next = nextPageQuery(strategy, { query: current, first, body: result.data, headers: result.response.headers, items, received });
    if (next === undefined || sent.has(queryKey(next))) return;
    if (pages >= maxPages)
      throw new PaginationError(
        'max-pages',
        `Read ${pages} pages and the list says more follow: pass a larger \`maxPages\` to read further.`,
      );
    sent.add(queryKey(next));
    current = next;
  }
}

/**
 * What the generated client builds each `...All` helper with (D227 page strategies as data in the client): `method` is the operation's method (its query
 * argument at `queryAt`, the call options after it), the helper takes the same arguments plus {@link PagingOptions}
 * and walks the pages with `strategy`. Typed `never`, as the runtime's `operation` is: the generated interface declares
 * each helper's type (its arguments, and items typed by the spec's schema).
 */
export function pages(method: unknown, strategy: PageStrategy, queryAt: number): never {
  const send = method as (...args: unknown[]) => Promise<ApiResult<unknown, unknown>>;
  const helper = (...args: unknown[]): AsyncIterableIterator<unknown> => {
    const fixed = args.slice(0, queryAt + 2);
    const call = (query: PageQuery): Promise<ApiResult<unknown, unknown>> => {
      const callArgs = [...fixed];
      callArgs[queryAt] = query;
      return send(...callArgs);
    };
    return walkPages(
      call,
      strategy,
      (args[queryAt] as PageQuery | undefined) ?? {},
      (args[queryAt + 2] as PagingOptions | undefined) ?? {},
    );
  };
  return helper as never;
}

/** Paygate's page: `results` and the `next` link beside them (the strategy {@link paginate} walks). */
const PAYGATE_PAGE: PageStrategy = { strategy: 'nextLink', items: ['results'], next: { in: 'body', path: ['next'] } };

/**
 * Iterate over every item of a list in Paygate's page shape (`results` and a `next` link), requesting page 1, 2, 3,
 * ... until `next` is null (or a page comes back empty). `fetchPage` also gets the query parameters of the previous
 * page's `next` link (empty for the first page), so a list paged by cursor sends the link's `cursor` back. Pages are
 * fetched lazily, one at a time, as you iterate. A failed page throws {@link PaygateApiError}; a page without a
 * `results` array throws {@link PaginationError}. For any other page shape, use the generated `...All` helper of the
 * operation (the generator reads the shape from the spec).
 *
 * @example
 * ```ts
 * for await (const refund of paginate((page) => paygate.refunds.list({ page, page_size: 250 }))) {
 *   console.log(refund.refund_id, refund.status);
 * }
 * ```
 */
export async function* paginate<T>(
  fetchPage: (page: number, next: Readonly<Record<string, string>>) => Promise<ApiResult<PageShape<T>, unknown>>,
  options: PaginateOptions = {},
): AsyncIterableIterator<T> {
  let page = options.startPage ?? 1;
  if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`startPage must be an integer >= 1, got ${String(page)}`);
  const paygatePage = async (query: PageQuery): Promise<ApiResult<unknown, unknown>> => {
    const result = await fetchPage(page++, query as Record<string, string>);
    if (result.ok && !Array.isArray((result.data as { results?: unknown } | null)?.results))
      throw new PaginationError(
        'not-a-page',
        "paginate() walks Paygate's page ({results, next}) and this answer has no `results` array: page any other API with its operation's generated `...All` helper, which follows the page shape its spec declares.",
      );
    return result;
  };
  yield* walkPages<T>(paygatePage, PAYGATE_PAGE, {}, options);
}
