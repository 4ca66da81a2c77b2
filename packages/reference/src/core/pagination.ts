import { validationError } from './errors.js';

export const MAX_PAGE = 100_000;
export const MAX_PAGE_SIZE = 250;

/** Default page sizes per list (brief "Pagination"). */
export const DEFAULT_PAGE_SIZE = {
  merchants: 250,
  refunds: 250,
  payments: 10,
  settlements: 250,
  webhookEndpoints: 250,
  webhookDeliveries: 10,
} as const;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface Page<T> {
  count: number;
  page: number;
  page_size: number;
  results: T[];
}

function toInt(field: string, value: number | string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw validationError(field, `must be an integer from ${min} to ${max}`);
  return n;
}

/** Validate `page` (1..100000, default 1) and `page_size` (1..250, default per list). */
export function pageRequest(page: number | string | undefined, pageSize: number | string | undefined, defaultSize: number): PageRequest {
  const p = toInt('page', page, 1, MAX_PAGE, 1);
  const s = toInt('page_size', pageSize, 1, MAX_PAGE_SIZE, defaultSize);
  return { page: p, pageSize: s, offset: (p - 1) * s };
}

export function toPage<T>(req: PageRequest, count: number, results: T[]): Page<T> {
  return { count, page: req.page, page_size: req.pageSize, results };
}

/**
 * Absolute next/previous links keeping every filter. `url` is the absolute request URL (any page params in it are
 * replaced). Null at the ends.
 */
export function pageLinks(url: string, page: Pick<Page<unknown>, 'count' | 'page' | 'page_size'>): { next: string | null; previous: string | null } {
  const lastPage = Math.max(1, Math.ceil(page.count / page.page_size));
  const link = (n: number): string => {
    const u = new URL(url);
    u.searchParams.set('page', String(n));
    u.searchParams.set('page_size', String(page.page_size));
    return u.toString();
  };
  return {
    next: page.page < lastPage ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(Math.min(page.page - 1, lastPage)) : null,
  };
}
