/**
 * The page strategies of the generated `...All` helpers (D225 pagination model by strategy; D227 page strategies as data in the client): what the generator found in the spec, as data
 * (`PageStrategy`, one constant per shape in client.gen.ts), and the one pure step each strategy takes: from a page
 * just received to the query of the next one, or undefined at the last page. The loop around it (bounds, errors,
 * laziness) is `walkPages` in paginate.ts.
 */
import { isUrlLike, linkQuery, nextFromLinkHeader, type PageQuery } from './paginate-link.js';
import { isObj as isRecord } from '@paygate/contract/json';

/** Where one value of a page lives: a property path in the JSON body, or a response header. */
export type PageValue = { readonly in: 'body'; readonly path: readonly string[] } | { readonly in: 'header'; readonly name: string };

/** The size of the whole list as the page reports it. */
export interface PageTotal {
  readonly value: PageValue;
  readonly counts: 'items' | 'pages';
}

/**
 * How one operation pages (the generator's `PaginationModel`, D225). `items` is the path from the body to the items
 * array ([] = the body is the array).
 */
export type PageStrategy =
  /** A token (body or header) sent back as `cursorParam`; ends when it is missing, null or '', or `hasMore` is false. */
  | {
      readonly strategy: 'cursor';
      readonly items: readonly string[];
      readonly cursorParam: string;
      readonly next: PageValue;
      readonly hasMore?: readonly string[];
    }
  /** The last item's `idField` sent back as `cursorParam` (Stripe's `starting_after`) while `hasMore` is not false. */
  | {
      readonly strategy: 'lastItem';
      readonly items: readonly string[];
      readonly cursorParam: string;
      readonly idField: string;
      readonly hasMore?: readonly string[];
    }
  /**
   * A next URL (body, a plain header, or an RFC 8288 `Link` header's rel="next") whose query is sent with the same
   * operation; a value that is not a URL goes back as `tokenParam`.
   */
  | { readonly strategy: 'nextLink'; readonly items: readonly string[]; readonly next: PageValue; readonly tokenParam?: string }
  /** `offsetParam` advanced by the items received; ends at `total`, a page shorter than the limit asked, or an empty page. */
  | {
      readonly strategy: 'offset';
      readonly items: readonly string[];
      readonly offsetParam: string;
      readonly limitParam?: string;
      readonly total?: PageTotal;
    }
  /** `pageParam` counted from `firstPage`; ends at `total`, a page shorter than the size asked, or an empty page. */
  | {
      readonly strategy: 'page';
      readonly items: readonly string[];
      readonly pageParam: string;
      readonly pageSizeParam?: string;
      readonly firstPage: number;
      readonly total?: PageTotal;
    };

/** Why a page helper stopped with an error rather than a page: the answer is not the page the spec describes. */
export type PaginationErrorReason = 'not-a-page' | 'no-cursor' | 'bad-link' | 'max-pages';

/**
 * A page helper met an answer it cannot page on (a 2xx whose body or headers break the page shape the spec declares),
 * or read `maxPages` pages with more to come. A failed page (non-2xx) is a `PaygateApiError` instead.
 */
export class PaginationError extends Error {
  override readonly name = 'PaginationError';
  constructor(
    readonly reason: PaginationErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** What one step reads: the request just sent, the page it got, and how many items the walk has yielded so far. */
export interface PageStep {
  /** The query of the request that got this page. */
  query: PageQuery;
  /** The query of the walk's first request (what the caller gave). */
  first: PageQuery;
  body: unknown;
  headers: Headers;
  /** This page's items (never empty: an empty page ends the walk before a step). */
  items: readonly unknown[];
  /** Items of every page so far, this one included. */
  received: number;
}

/** The value at `path` of the body (undefined when a step is missing or not an object). */
export function valueAt(body: unknown, path: readonly string[]): unknown {
  let node = body;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

const where = (path: readonly string[]): string => (path.length === 0 ? 'the body' : `body.${path.join('.')}`);

/** The page's items: the array at `path`; a missing or null one is an empty page; anything else is not a page. */
export function itemsOf(body: unknown, path: readonly string[]): readonly unknown[] {
  const items = valueAt(body, path);
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items))
    throw new PaginationError('not-a-page', `The page has no items array at ${where(path)} (got ${typeof items}), as the spec declares.`);
  return items;
}

/** An integer read from a query value, a body field or a header ('25' -> 25), else undefined. */
function integer(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

function read(value: PageValue, step: PageStep): unknown {
  return value.in === 'header' ? (step.headers.get(value.name) ?? undefined) : valueAt(step.body, value.path);
}

const describe = (value: PageValue): string => (value.in === 'header' ? `the ${value.name} header` : where(value.path));

/** The has-more flag says no more (only an explicit `false` ends: a missing flag is not an answer). */
const saysNoMore = (path: readonly string[] | undefined, body: unknown): boolean => path !== undefined && valueAt(body, path) === false;

function cursorStep(s: Extract<PageStrategy, { strategy: 'cursor' }>, step: PageStep): PageQuery | undefined {
  if (saysNoMore(s.hasMore, step.body)) return undefined;
  const token = read(s.next, step);
  if (token === undefined || token === null || token === '') return undefined;
  if (typeof token !== 'string' && typeof token !== 'number')
    throw new PaginationError('no-cursor', `The next page's cursor at ${describe(s.next)} is a ${typeof token}, not a string or a number.`);
  return { ...step.query, [s.cursorParam]: token };
}

function lastItemStep(s: Extract<PageStrategy, { strategy: 'lastItem' }>, step: PageStep): PageQuery | undefined {
  if (saysNoMore(s.hasMore, step.body)) return undefined;
  const last = step.items[step.items.length - 1];
  const id = isRecord(last) ? last[s.idField] : undefined;
  if (typeof id !== 'string' && typeof id !== 'number')
    throw new PaginationError(
      'no-cursor',
      `The last item of the page has no \`${s.idField}\` to send as \`${s.cursorParam}\` for the next page.`,
    );
  return { ...step.query, [s.cursorParam]: id };
}

function nextLinkStep(s: Extract<PageStrategy, { strategy: 'nextLink' }>, step: PageStep): PageQuery | undefined {
  let link: unknown;
  if (s.next.in === 'header' && s.next.name.toLowerCase() === 'link') {
    const header = step.headers.get(s.next.name);
    if (header === null || header.trim() === '') return undefined;
    try {
      link = nextFromLinkHeader(header);
    } catch (error) {
      throw new PaginationError('bad-link', `The Link header is not RFC 8288 (${(error as Error).message}): ${header.slice(0, 200)}`);
    }
  } else {
    link = read(s.next, step);
  }
  if (link === undefined || link === null || link === '') return undefined;
  if (typeof link !== 'string')
    throw new PaginationError('bad-link', `The next page's link at ${describe(s.next)} is a ${typeof link}, not a URL.`);
  if (isUrlLike(link)) {
    const query = linkQuery(link);
    if (query === undefined)
      throw new PaginationError('bad-link', `The next page's link at ${describe(s.next)} is not a URL: ${link.slice(0, 200)}`);
    // D227: the same operation with the link's query (the link wins), never a request to the link's own host
    return { ...step.query, ...query };
  }
  if (s.tokenParam !== undefined) return { ...step.query, [s.tokenParam]: link };
  throw new PaginationError(
    'bad-link',
    `The next page's link at ${describe(s.next)} is neither a URL nor a token the operation takes: ${link.slice(0, 200)}`,
  );
}

/** The total, or undefined when the page does not carry a usable one. */
const totalOf = (total: PageTotal | undefined, step: PageStep): number | undefined =>
  total === undefined ? undefined : integer(read(total.value, step));

function offsetStep(s: Extract<PageStrategy, { strategy: 'offset' }>, step: PageStep): PageQuery | undefined {
  const next = (integer(step.query[s.offsetParam]) ?? 0) + step.items.length;
  const limit = s.limitParam === undefined ? undefined : integer(step.query[s.limitParam]);
  if (limit !== undefined && step.items.length < limit) return undefined;
  const total = totalOf(s.total, step);
  if (total !== undefined && s.total?.counts === 'items' && next >= total) return undefined;
  return { ...step.query, [s.offsetParam]: next };
}

function pageStep(s: Extract<PageStrategy, { strategy: 'page' }>, step: PageStep): PageQuery | undefined {
  const page = integer(step.query[s.pageParam]) ?? s.firstPage;
  const size = s.pageSizeParam === undefined ? undefined : integer(step.query[s.pageSizeParam]);
  if (size !== undefined && step.items.length < size) return undefined;
  const total = totalOf(s.total, step);
  if (total !== undefined) {
    const pagesRead = page - s.firstPage + 1;
    if (s.total?.counts === 'pages' && pagesRead >= total) return undefined;
    // items before this page's end: from the page number when the size is known, else counted from the first page
    const startedAtFirst = (integer(step.first[s.pageParam]) ?? s.firstPage) === s.firstPage;
    const seen = size !== undefined ? pagesRead * size : startedAtFirst ? step.received : undefined;
    if (s.total?.counts === 'items' && seen !== undefined && seen >= total) return undefined;
  }
  return { ...step.query, [s.pageParam]: page + 1 };
}

/** The query of the page after `step`, or undefined when `step` was the last page (D227 page strategies as data in the client). */
export function nextPageQuery(strategy: PageStrategy, step: PageStep): PageQuery | undefined {
  switch (strategy.strategy) {
    case 'cursor':
      return cursorStep(strategy, step);
    case 'lastItem':
      return lastItemStep(strategy, step);
    case 'nextLink':
      return nextLinkStep(strategy, step);
    case 'offset':
      return offsetStep(strategy, step);
    case 'page':
      return pageStep(strategy, step);
  }
}

/**
 * The query of a page strategy's first request: the caller's, with the page number a numbered list starts at when
 * the caller gave none (so the count the next pages follow matches the page the server sent).
 */
export function firstPageQuery(strategy: PageStrategy, query: PageQuery): PageQuery {
  if (strategy.strategy === 'page' && query[strategy.pageParam] === undefined)
    return { ...query, [strategy.pageParam]: strategy.firstPage };
  return { ...query };
}
