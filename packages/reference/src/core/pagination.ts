import { validationError } from './errors.js';
import type { Db } from '../db/db.js';
import type { Params } from '../db/params.js';

export const MAX_PAGE = 100_000;
export const MAX_PAGE_SIZE = 250;
/** Settlements embed their lines, so a page serves at most this many, whatever page_size asks (D110 settlements list serves at most 25 per page). */
export const MAX_SETTLEMENT_PAGE_SIZE = 25;
/**
 * `count` is exact up to this many rows; past it the list answers COUNT_CAP + 1, "more than COUNT_CAP" (D108 lists page by keyset over tenant indexes): counting
 * stops there, so a request never walks a merchant's whole history to count it.
 */
export const COUNT_CAP = 1000;
/** A page addressed by number alone (no cursor) must lie within the first OFFSET_WINDOW rows (D108 lists page by keyset over tenant indexes). */
export const OFFSET_WINDOW = 1000;

/** Default page sizes per list (brief "Pagination"; settlements D110). */
export const DEFAULT_PAGE_SIZE = {
  merchants: 250,
  refunds: 250,
  payments: 10,
  settlements: 10,
  webhookEndpoints: 250,
  webhookDeliveries: 10,
} as const;

/** A position in a list ordered by (sort key, id) descending: the page after it (older rows) or before it (newer). */
export interface Cursor {
  dir: 'after' | 'before';
  /** The sort key of the row the cursor points at (an ISO timestamp with microseconds, as the db layer returns it). */
  at: string;
  id: string;
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
  cursor: Cursor | null;
}

/** Where a `next` / `previous` link goes: the page number it shows and the cursor that finds it. */
export interface PageLink {
  page: number;
  cursor: string | null;
}

export interface Page<T> {
  count: number;
  page: number;
  page_size: number;
  results: T[];
  next: PageLink | null;
  previous: PageLink | null;
  /**
   * Set when a list with several filters stopped after reading its limit of rows (D344 every list bounded by its page): `results` may be fewer than
   * `page_size`, `count` counts only the matches seen; `next` continues.
   */
  incomplete_results?: boolean;
}

function toInt(field: string, value: number | string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw validationError(field, `must be an integer from ${min} to ${max}`);
  return n;
}

const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CURSOR_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Opaque to clients (base64url JSON): they get it in `next` / `previous` and send it back unchanged. */
export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.dir === 'after' ? 'a' : 'b', c.at, c.id])).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  const bad = () => validationError('cursor', 'is not a cursor from a next or previous link of this list');
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(raw) || raw.length !== 3) throw bad();
  const [dir, at, id] = raw as unknown[];
  if ((dir !== 'a' && dir !== 'b') || typeof at !== 'string' || !CURSOR_AT.test(at) || typeof id !== 'string' || !CURSOR_ID.test(id))
    throw bad();
  return { dir: dir === 'a' ? 'after' : 'before', at, id };
}

/**
 * Validate `page` (1..100000, default 1), `page_size` (1..250, default per list; a list may serve fewer, `served`,
 * and say so in the page's page_size: D110) and `cursor`. Without a cursor the page is found by OFFSET, allowed only
 * within the first OFFSET_WINDOW rows; with one, `page` only labels the page.
 */
export function pageRequest(
  page: number | string | undefined,
  pageSize: number | string | undefined,
  defaultSize: number,
  cursor?: string | undefined,
  served: number = MAX_PAGE_SIZE,
): PageRequest {
  const p = toInt('page', page, 1, MAX_PAGE, 1);
  const s = Math.min(served, toInt('page_size', pageSize, 1, MAX_PAGE_SIZE, defaultSize));
  const c = cursor === undefined || cursor === '' ? null : decodeCursor(cursor);
  const offset = c ? 0 : (p - 1) * s;
  if (!c && offset + s > OFFSET_WINDOW && p > 1) {
    throw validationError('page', `pages past the first ${OFFSET_WINDOW} rows are reached through the next and previous links (cursor)`);
  }
  return { page: p, pageSize: s, offset, cursor: c };
}

/**
 * The ORDER BY / LIMIT / OFFSET and keyset condition of a page of a list sorted newest first on (sortCol, idCol).
 * The condition goes into the WHERE clause so the index on (tenant, sortCol, idCol) starts at the cursor (D108 lists page by keyset over tenant indexes).
 * One row more than the page is fetched: it tells whether there is a next page without counting.
 */
export function keysetClauses(
  req: PageRequest,
  sortCol: string,
  idCol: string,
  p: Params,
  idType = 'text',
): { where: string | null; tail: string } {
  const c = req.cursor;
  // a cursor of another list may hold an id of another type: a 400, never a failed cast
  if (c && idType === 'bigint' && !/^\d{1,18}$/.test(c.id))
    throw validationError('cursor', 'is not a cursor from a next or previous link of this list');
  // LIMIT and OFFSET are integers computed here, written as literals: a generic plan (a prepared statement after its
  // fifth run) then still knows the page is small and walks the index instead of joining whole tables (D344 every list bounded by its page)
  if (!Number.isSafeInteger(req.pageSize) || !Number.isSafeInteger(req.offset)) throw new Error('page size and offset must be integers');
  const limit = `LIMIT ${req.pageSize + 1}`;
  if (!c) return { where: null, tail: `ORDER BY ${sortCol} DESC, ${idCol} DESC ${limit} OFFSET ${req.offset}` };
  const key = `(${p.add(c.at)}::timestamptz, ${p.add(c.id)}::${idType})`;
  return c.dir === 'after'
    ? { where: `(${sortCol}, ${idCol}) < ${key}`, tail: `ORDER BY ${sortCol} DESC, ${idCol} DESC ${limit}` }
    : { where: `(${sortCol}, ${idCol}) > ${key}`, tail: `ORDER BY ${sortCol} ASC, ${idCol} ASC ${limit}` };
}

/**
 * `count(*)` of at most COUNT_CAP + 1 matching rows (D108 lists page by keyset over tenant indexes). `fromWhere` is `FROM ... WHERE ...` without the keyset
 * condition. The rows are counted in the list's own order so the planner walks the list's index (and stops after
 * COUNT_CAP + 1 entries) rather than scanning the table until it has seen enough matches.
 */
export async function cappedCount(db: Db, fromWhere: string, values: readonly unknown[], sortCol: string, idCol: string): Promise<number> {
  const { rows } = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM (SELECT 1 ${fromWhere} ORDER BY ${sortCol} DESC, ${idCol} DESC LIMIT ${COUNT_CAP + 1}) capped`,
    values,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Turn the rows fetched with {@link keysetClauses} into a page: trims the look-ahead row, restores newest-first order
 * for a `before` page, and points `next` / `previous` at cursors on the page's last / first row.
 */
export function toPage<R, T>(
  req: PageRequest,
  count: number,
  fetched: R[],
  keyOf: (row: R) => { at: string; id: string },
  view: (row: R) => T,
): Page<T> {
  const more = fetched.length > req.pageSize;
  const rows = fetched.slice(0, req.pageSize);
  const before = req.cursor?.dir === 'before';
  if (before) rows.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  const link = (page: number, dir: Cursor['dir'], row: R): PageLink => ({
    page: Math.max(1, page),
    cursor: encodeCursor({ dir, ...keyOf(row) }),
  });
  let next: PageLink | null = null;
  let previous: PageLink | null = null;
  if (before) {
    if (last) next = link(req.page + 1, 'after', last);
    if (more && first) previous = link(req.page - 1, 'before', first);
  } else {
    if (more && last) next = link(req.page + 1, 'after', last);
    if (req.page > 1)
      previous = first
        ? link(req.page - 1, 'before', first)
        : { page: Math.max(1, Math.min(req.page - 1, Math.ceil(count / req.pageSize))), cursor: null };
  }
  return { count, page: req.page, page_size: req.pageSize, results: rows.map(view), next, previous };
}

/**
 * Absolute next/previous links keeping every filter. `url` is the absolute request URL (any page params in it are
 * replaced). Null at the ends.
 */
export function pageLinks(
  url: string,
  page: Pick<Page<unknown>, 'page_size' | 'next' | 'previous'>,
): { next: string | null; previous: string | null } {
  const href = (l: PageLink | null): string | null => {
    if (!l) return null;
    const u = new URL(url);
    u.searchParams.delete('cursor');
    u.searchParams.set('page', String(l.page));
    u.searchParams.set('page_size', String(page.page_size));
    if (l.cursor) u.searchParams.set('cursor', l.cursor);
    return u.toString();
  };
  return { next: href(page.next), previous: href(page.previous) };
}
