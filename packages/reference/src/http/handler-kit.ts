import { HttpError, type HandlerContext, type UploadedFile as MultipartFile } from '@paygate/server';
import { DomainError, VALIDATION_MESSAGE } from '../core/errors.js';
import { pageLinks, type Page } from '../core/pagination.js';
import type { ReferenceConfig } from '../core/config.js';
import type { ServiceDeps } from '../core/deps.js';
import type { Clock } from '../core/clock.js';
import type { ScopedDb } from '../db/ambient.js';
import { toHttpError } from './errors.js';
import type { DocumentStore, UploadedFile } from '../core/documents.js';
import { claimScope, resolveScope, type ClaimedScope, type Principal, type Scope } from '../core/scope.js';

export type { Principal } from '../core/scope.js';
export type Ctx = HandlerContext<Principal>;

/**
 * The services feature handlers are given (config, database, clock, documents, credential cache): a part of the opened
 * gateway, `ReferenceRuntime` (the composition root, ../runtime.ts), which holds more (workers, listeners, the pool).
 */
export interface HandlerServices {
  config: ReferenceConfig;
  /** The database; `transactionScope` makes every statement of a request join one transaction (idempotent POSTs). */
  db: ScopedDb;
  /** The gateway's clock (each merchant's sandbox clock is an offset from it: core/merchant-clock.ts). */
  clock: Clock;
  deps: ServiceDeps;
  documents: DocumentStore;
  /**
   * This process's cache of verified credentials (credentials/cache.ts). Other processes drop a changed credential
   * when its NOTIFY arrives; the process that changed it drops its own at once, so its next request, which may come
   * before that notification, never sees a rotated-out secret.
   */
  credentials: { flush(): void };
}

/** `{ success: true, message, data }` */
export function ok<M extends string, D>(message: M, data: D): { success: true; message: M; data: D } {
  return { success: true, message, data };
}

/** The authenticated principal (operations with security requirements only). */
export function principalOf(ctx: Ctx): Principal {
  const p = ctx.principal as Principal | undefined;
  if (!p) throw new HttpError(401, 'ERR_AUTH_000', 'Missing credentials');
  return p;
}

function declares(ctx: Ctx, status: number): boolean {
  return Object.hasOwn(ctx.operation.responses, String(status));
}

/**
 * The merchant scope of the request: the principal narrowed by `X-Merchant-ID` (header, declared only on order
 * creation but honoured on every merchant-scoped call). A wrong header is 403 / 404 where the operation declares
 * that status, else 400 ERR_VALIDATION_400 on `X-Merchant-ID` (so every answer stays within the spec).
 */
export async function scopeOf(rt: HandlerServices, ctx: Ctx): Promise<Scope> {
  const principal = principalOf(ctx);
  const header = ctx.req.get('x-merchant-id');
  // what needs no database (no header, or a merchant's own id) is answered without the look-up's promise chain
  let claimed: ClaimedScope;
  try {
    claimed = claimScope(principal, header);
  } catch (err) {
    throw scopeError(ctx, err);
  }
  if (!claimed.ownerUnchecked) return claimed.scope;
  return withScopeErrors(ctx, () => resolveScope(rt.db, principal, header));
}

/**
 * {@link scopeOf} without the ownership query: for a handler whose service reads the merchant anyway and checks
 * `partner_id` in that statement when `ownerUnchecked` (it throws `notPartnersMerchant()`, which must go through
 * {@link withScopeErrors} to get scopeOf's answer).
 */
export function claimedScopeOf(ctx: Ctx): ClaimedScope {
  const principal = principalOf(ctx);
  const header = ctx.req.get('x-merchant-id');
  try {
    return claimScope(principal, header);
  } catch (err) {
    throw scopeError(ctx, err);
  }
}

/** Run `fn`; a scope error (403 / 404 on X-Merchant-ID) becomes scopeOf's answer for this operation. */
export async function withScopeErrors<T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw scopeError(ctx, err);
  }
}

function scopeError(ctx: Ctx, err: unknown): unknown {
  if (
    err instanceof DomainError &&
    (err.code === 'ERR_AUTH_403' || err.code === 'ERR_MERCHANT_404') &&
    err.details?.['x-merchant-id'] &&
    !declares(ctx, err.status)
  ) {
    return new HttpError(400, 'ERR_VALIDATION_400', VALIDATION_MESSAGE, {
      'x-merchant-id': err.code === 'ERR_AUTH_403' ? 'must equal the merchant id of the credentials' : 'no such merchant',
    });
  }
  return toHttpError(err);
}

/**
 * Narrow a scope to the `merchant_id` query filter without ever widening it: a merchant outside the scope yields
 * `null` (the caller answers with an empty page).
 */
export async function narrowScope(rt: HandlerServices, scope: Scope, merchantId: string | undefined): Promise<Scope | null> {
  if (merchantId === undefined || merchantId === '') return scope;
  if (scope.merchantId !== undefined) return scope.merchantId === merchantId ? scope : null;
  const { rows } = await rt.db.query('SELECT 1 FROM merchants WHERE id = $1 AND partner_id = $2', [merchantId, scope.partnerId]);
  return rows.length === 0 ? null : { partnerId: scope.partnerId, merchantId };
}

/** Query values that are filters (not paging), as strings. */
function filterEntries(query: object): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(query)) {
    if (k === 'page' || k === 'page_size' || k === 'cursor' || v === undefined || v === null || v === '') continue;
    for (const item of Array.isArray(v) ? v : [v]) out.push([k, String(item)]);
  }
  return out;
}

/**
 * A page with absolute `next` / `previous`: config.publicBaseUrl + the request path + every query filter (+ page and
 * page_size). Null at the ends.
 */
export function withLinks<T>(
  rt: HandlerServices,
  ctx: Ctx,
  query: object,
  page: Page<T>,
): {
  count: number;
  page: number;
  page_size: number;
  next: string | null;
  previous: string | null;
  results: T[];
  incomplete_results?: boolean;
} {
  const url = new URL(`${rt.config.publicBaseUrl}${ctx.req.path}`);
  for (const [k, v] of filterEntries(query)) url.searchParams.append(k, v);
  const links = pageLinks(url.toString(), page);
  return {
    count: page.count,
    page: page.page,
    page_size: page.page_size,
    next: links.next,
    previous: links.previous,
    results: page.results,
    // only a list that stopped after its limit of rows says so (every list bounded by its page)
    ...(page.incomplete_results ? { incomplete_results: true } : {}),
  };
}

/** An empty page for a filter outside the caller's scope. */
export function emptyPage<T>(page: number | undefined, pageSize: number | undefined, defaultSize: number): Page<T> {
  return { count: 0, page: page ?? 1, page_size: pageSize ?? defaultSize, results: [], next: null, previous: null };
}

/** multer's in-memory file -> the documents service's UploadedFile. */
export function toUpload(file: MultipartFile): UploadedFile {
  return { bytes: file.buffer, contentType: file.mimetype, originalName: file.originalname };
}
