import { PaygateApiError, type ApiResult } from './result.js';

/** Paygate's pagination envelope. */
export interface Page<T> {
  count: number;
  page: number;
  page_size: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface PaginateOptions {
  /** First page to request. Default 1. */
  startPage?: number;
}

/** The query parameters of a `next` link (absolute or relative URL), e.g. the keyset `cursor` the next request sends back. */
function linkQuery(link: string): Record<string, string> {
  try {
    return Object.fromEntries(new URL(link, 'http://relative.invalid').searchParams);
  } catch {
    return {};
  }
}

/**
 * Iterate over every item of a paginated list, requesting page 1, 2, 3, ... until `next` is null (or a page comes back
 * empty). `fetchPage` also gets the query parameters of the previous page's `next` link (empty for the first page), so
 * a list paged by cursor sends the link's `cursor` back. Pages are fetched lazily, one at a time, as you iterate. A
 * failed page throws {@link PaygateApiError}.
 *
 * @example
 * ```ts
 * for await (const refund of paginate((page) => paygate.refunds.list({ page, page_size: 250 }))) {
 *   console.log(refund.refund_id, refund.status);
 * }
 * ```
 */
export async function* paginate<T>(
  fetchPage: (page: number, next: Readonly<Record<string, string>>) => Promise<ApiResult<Page<T>, unknown>>,
  options: PaginateOptions = {},
): AsyncIterableIterator<T> {
  let page = options.startPage ?? 1;
  if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`startPage must be an integer >= 1, got ${String(page)}`);
  let nextQuery: Readonly<Record<string, string>> = {};
  for (;;) {
    const result = await fetchPage(page, nextQuery);
    if (!result.ok) throw new PaygateApiError(result);
    const { results, next } = result.data;
    yield* results;
    if (next === null || next === undefined || results.length === 0) return;
    nextQuery = linkQuery(next);
    page += 1;
  }
}
