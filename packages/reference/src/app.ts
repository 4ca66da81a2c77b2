import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { idempotentOperationIds as generatedIdempotentOperationIds } from '@paygate/contract';
import {
  createApp,
  HttpError,
  HttpErrorWithPage,
  mapError,
  type Handlers,
  type HandlerCall,
  type HandlerHook,
  type Logger,
  RenderedResponse,
  type SchemeAuthenticator,
} from '@paygate/server';
import { createHandlers, type Principal } from './handlers.js';
import { authenticationError, toHttpError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './http/errors.js';
import type { ReferenceRuntime } from './runtime.js';
import { rejectMalformedSessionIds } from './checkout/session-guard.js';
import { renderBusyPage, renderUnavailablePage, RESULT_PAGE_CSP } from './checkout/redirect.js';
import {
  claimIdempotencyKey,
  idempotencyScope,
  recordIdempotentOutcome,
  requestFingerprint,
  type StoredResponse,
} from './http/idempotency.js';
import { requestIdOf, requestLogging } from './http/logger.js';
import { HOME_LINKS, HOME_PAGE_CSP, renderHomePage } from './home/page.js';

/** Repository root `docs/site/` (the same relative depth from src/ and dist/). */
export const DEFAULT_DOCS_DIR = fileURLToPath(new URL('../../../docs/site/', import.meta.url));

export interface ReferenceAppOptions {
  /** pino (or any Logger-compatible) logger; one access line per request, errors, never secrets. */
  logger: Logger;
  /** Validate every response against the spec (default: on unless NODE_ENV === 'production'). */
  validateResponses?: boolean;
  /** Rate limit per credential / client address (default: the runtime's PAYGATE_RATE_LIMIT per PAYGATE_RATE_WINDOW_SECONDS). */
  rateLimit?: { limit?: number; windowSeconds?: number };
  /** Express `trust proxy` (PAYGATE_TRUST_PROXY): whose X-Forwarded-For names the client. Unset: nobody's. */
  trustProxy?: boolean | number | string | undefined;
  /** Static documentation site served at /docs (default: `<repo>/docs/site`). */
  docsDir?: string;
}

const IDEMPOTENCY_HEADER = 'idempotency-key';

function errorBody(status: number, code: string, message: string, details?: Record<string, string>) {
  return mapError(new HttpError(status, code, message, details)).body;
}

/** Operation ids that declare the `Idempotency-Key` header (generated in the contract's route table). */
export function idempotentOperationIds(): ReadonlySet<string> {
  return generatedIdempotentOperationIds;
}

/** Deterministic JSON of a request body (the idempotency fingerprint input): keys sorted, file bytes as a digest. */
export function canonical(value: unknown): string {
  const seen = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { $bytes: requestFingerprint('', '', v as Uint8Array) };
    if (Array.isArray(v)) return v.map(seen);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) out[key] = seen((v as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(seen(value) ?? null);
}

/** Service errors that escaped a handler still become HttpErrors (every handler runs through this). */
async function withErrorMapping<TResult>(next: () => Promise<TResult>): Promise<TResult> {
  try {
    return await next();
  } catch (err) {
    throw toHttpError(err);
  }
}

/** The stored form of a rendered response (its exact body text). */
function stored(rendered: RenderedResponse): StoredResponse {
  const body =
    rendered.body === undefined ? '' : typeof rendered.body === 'string' ? rendered.body : Buffer.from(rendered.body).toString('utf8');
  return {
    status: rendered.status,
    contentType: rendered.body === undefined ? null : rendered.contentType,
    body,
    headers: { ...rendered.headers },
  };
}

/** The request body of a typed request (the fingerprint's input). */
function bodyOf(request: unknown): unknown {
  return typeof request === 'object' && request !== null && 'body' in request ? request.body : undefined;
}

/** Statuses whose answer is final and recorded for replay: 2xx-4xx except 429 (a retry may succeed later). */
function isFinalStatus(status: number): boolean {
  return status < 500 && status !== 429;
}

/** A non-final answer (5xx) leaves the transaction by this error so that it rolls back, and is returned after. */
class RollBack extends Error {
  constructor() {
    super('non-final response: roll the idempotent request back');
  }
}

type IdempotentOutcome<TResult> =
  | { kind: 'result'; result: TResult }
  | { kind: 'error'; error: HttpError }
  | { kind: 'replay'; stored: StoredResponse };

/**
 * The ONE idempotency wrapper (POSTs declaring `Idempotency-Key`), a typed hook around the handler (D120's
 * `around`: no casts; the bytes recorded are what the scaffold renders), exactly once:
 * - the key is claimed, the handler runs and the key's outcome is recorded in ONE database transaction (every
 *   service statement joins it through `transactionScope`). A crash or a failure anywhere before commit leaves
 *   nothing, so a retry runs once; after commit the outcome is there, so a retry replays it;
 * - the claim is a transaction-scoped advisory lock, so a retry cannot take over a first execution that can still
 *   commit, however long it stalls (409 ERR_IDEMPOTENCY_409 meanwhile);
 * - keys belong to the account the request acts for (see idempotencyScope), not to the credential;
 * - final answers (2xx, 4xx but 429) are recorded, the exact body text sealed; a 4xx rolls the handler's own
 *   writes back to a savepoint first. 5xx and 429 roll everything back, so the key stays free for a retry;
 * - a replay sends the stored text byte for byte, with its content type, headers and `Idempotent-Replayed: true`;
 *   the same key with another request is 422 ERR_IDEMPOTENCY_422.
 */
async function withIdempotency<TRequest, TResult>(
  rt: ReferenceRuntime,
  call: HandlerCall<TRequest, TResult, Principal>,
  inFlight: Set<string>,
): Promise<TResult | RenderedResponse> {
  const { ctx } = call;
  const key = ctx.req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) return withErrorMapping(call.next);
  let outcome: IdempotentOutcome<TResult>;
  let claimedHere: string | undefined;
  let nonFinal: { result: TResult } | undefined;
  try {
    const scope = await idempotencyScope(rt.db, ctx.principal, ctx.req.get('x-merchant-id'), ctx.req.ip ?? 'unknown');
    const claim = { scope, key, fingerprint: requestFingerprint(ctx.req.method, ctx.req.path, canonical(bodyOf(call.request))) };
    // Same key already running in this process: 409 at once, without waiting for a connection (on PGlite, the one
    // connection is that request's). Other processes are kept out by the key's advisory lock below.
    const local = `${scope}\n${key}`;
    if (inFlight.has(local))
      throw new HttpError(409, 'ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is still being processed; retry later');
    inFlight.add((claimedHere = local));
    outcome = await rt.db.transactionScope(async (tx): Promise<IdempotentOutcome<TResult>> => {
      const claimed = await claimIdempotencyKey(tx, rt.deps, claim.scope, claim.key, claim.fingerprint);
      if (claimed.kind === 'replay') return { kind: 'replay', stored: claimed };
      await tx.query('SAVEPOINT idempotent_request');
      let result: TResult;
      try {
        result = await call.next();
      } catch (err) {
        const mapped = toHttpError(err);
        if (!(mapped instanceof HttpError) || !isFinalStatus(mapped.status)) throw mapped;
        await tx.query('ROLLBACK TO SAVEPOINT idempotent_request');
        // what the scaffold's error handler sends for it
        await recordIdempotentOutcome(tx, rt.deps, claim, stored(call.render({ error: mapped })));
        return { kind: 'error', error: mapped };
      }
      const rendered = call.render({ result });
      if (!isFinalStatus(rendered.status)) {
        nonFinal = { result };
        throw new RollBack();
      }
      await recordIdempotentOutcome(tx, rt.deps, claim, stored(rendered));
      return { kind: 'result', result };
    });
  } catch (err) {
    if (err instanceof RollBack && nonFinal !== undefined) return nonFinal.result;
    throw toHttpError(err);
  } finally {
    if (claimedHere !== undefined) inFlight.delete(claimedHere);
  }
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'result') return outcome.result;
  const replay = outcome.stored;
  // The stored text verbatim (byte-identical to the first answer), not re-serialised from a parsed body.
  return new RenderedResponse(
    replay.status,
    replay.contentType,
    { ...replay.headers, 'Idempotent-Replayed': 'true' },
    replay.contentType === null ? undefined : replay.body,
  );
}

/** A shopper's page: its 503 is a page when the browser asks for HTML (the scaffold picks by Accept), D91. */
async function withUnavailablePage<TResult>(next: () => Promise<TResult>): Promise<TResult> {
  try {
    return await next();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 503 || err instanceof HttpErrorWithPage) throw err;
    const page = { contentType: 'text/html', text: renderUnavailablePage(UNAVAILABLE_RETRY_AFTER_SECONDS) };
    const withPage = new HttpErrorWithPage(
      err.status,
      err.code,
      err.message,
      err.details,
      { ...err.headers, 'Content-Security-Policy': RESULT_PAGE_CSP },
      page,
    );
    throw Object.assign(withPage, { cause: (err as Error & { cause?: unknown }).cause });
  }
}

/**
 * The hook around every handler: idempotency where the operation declares `Idempotency-Key`, error mapping
 * everywhere, the 503 page on a shopper's pages.
 */
function handlerHook(rt: ReferenceRuntime): HandlerHook<Handlers<Principal>, Principal> {
  const idempotent = idempotentOperationIds();
  /** `<scope>\n<key>` of the idempotent requests running in this app. */
  const inFlight = new Set<string>();
  const handle: HandlerHook<Handlers<Principal>, Principal> = (call) => {
    if (BROWSER_OPERATIONS.has(call.operationId)) {
      return withUnavailablePage(() =>
        idempotent.has(call.operationId) ? withIdempotency(rt, call, inFlight) : withErrorMapping(call.next),
      );
    }
    // a read (no Idempotency-Key declared) gets the error mapping only: no claim, no transaction scope (D148)
    return idempotent.has(call.operationId) ? withIdempotency(rt, call, inFlight) : withErrorMapping(call.next);
  };
  return (call) => {
    // Bounded waits per tenant (D363): an authenticated request runs in its tenant's share of the pool (a shopper's
    // pages carry no credential and are not counted)
    const principal = call.ctx.principal as Principal | undefined;
    const share = rt.tenantShare;
    if (share === undefined || principal === undefined) return handle(call);
    return share.run(tenantOf(principal), () => handle(call));
  };
}

/** Whose share of the pool a request uses (D363): the merchant's, or the partner's for a partner credential. */
function tenantOf(principal: Principal): string {
  return principal.kind === 'merchant' ? `merchant:${principal.merchantId}` : `partner:${principal.partnerId}`;
}

/**
 * The authenticator of both Paygate schemes (D120). `ClientId` and `ClientSecret` form one requirement (an AND): the
 * pair is verified once, by whichever of the two runs first (the credentials of both are passed to each); the other
 * passes its principal on.
 */
function credentialPair(rt: ReferenceRuntime): SchemeAuthenticator<Principal> {
  const verify = async (id: unknown, secret: unknown): Promise<Principal> => {
    try {
      return (await rt.credentials.verify(typeof id === 'string' ? id : undefined, typeof secret === 'string' ? secret : undefined))
        .principal;
    } catch (err) {
      throw authenticationError(err);
    }
  };
  return ({ credentials, principal, req, operation }) => {
    // for the access log line, also when authentication fails
    if (req.res) req.res.locals['operation'] = operation;
    // the pair's second scheme passes the principal on without a promise (D166)
    if (principal !== undefined) return principal;
    return verify(credentials.ClientId, credentials.ClientSecret);
  };
}

/** Operations a shopper's browser calls: their 429 is a page when the browser asks for HTML. */
const BROWSER_OPERATIONS: ReadonlySet<string> = new Set(['getCheckoutPage', 'submitCheckoutPage']);

async function applyRateLimit(
  rt: ReferenceRuntime,
  res: Response,
  key: string,
  options: ReferenceAppOptions['rateLimit'],
  browser = false,
): Promise<void> {
  const decision = await rt.rateLimiter.hit(key, options ?? NO_OPTIONS);
  if (decision.allowed) {
    // setHeader directly: Express's res.set walks an object and re-checks each name for Content-Type
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    return;
  }
  const headers = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
  const refused = { ...headers, 'Retry-After': String(decision.resetSeconds) };
  if (browser) {
    const page = { contentType: 'text/html', text: renderBusyPage(decision.resetSeconds) };
    throw new HttpErrorWithPage(
      429,
      'ERR_RATE_429',
      'Too many requests',
      undefined,
      { ...refused, 'Content-Security-Policy': RESULT_PAGE_CSP },
      page,
    );
  }
  throw new HttpError(429, 'ERR_RATE_429', 'Too many requests', undefined, refused);
}

const NO_OPTIONS: NonNullable<ReferenceAppOptions['rateLimit']> = {};

/**
 * Content-Security-Policy of the /docs site (D40), checked in Chromium by test/e2e/docs.test.ts: scripts only from the
 * site itself (Redoc's bundle, the document, redoc-init.js: no inline script, no eval); styles from the site and
 * inline, because Redoc renders with styled-components (injected <style> elements and style attributes); images only
 * as data: URLs (Redoc's icons; its attribution logo on cdn.redoc.ly is refused: no third-party requests); workers from
 * blob: (Redoc's search index); fetch to the gateway itself only (`connect-src 'self'`: the operation pages' try-it asks
 * /healthz whether this is a sandbox and sends the reader's request, D391); nothing else (no fonts, plugins, frames,
 * forms or <base>). Removing img-src, worker-src or connect-src makes that test fail; font-src was not needed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src data:',
  'worker-src blob:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** A path is under `prefix` as Express's `app.use(prefix)` would match it: the prefix itself or below it. */
function under(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) /* / */;
}

/** The paths of the gateway's own routes (health, docs, home page): every other path never enters their router. */
function isOwnRoute(path: string): boolean {
  return path === '/' || path === '/healthz' || path === '/readyz' || under(path, '/docs');
}

/**
 * The gateway's own routes (health, readiness, docs, home page), in a router of their own that only their paths enter
 * (D148). Matched exactly (slash and case), as the scaffold matches the API's.
 */
function ownRoutes(rt: ReferenceRuntime, options: ReferenceAppOptions): express.Router {
  const router = express.Router({ strict: true, caseSensitive: true });

  // Liveness: the process is up and its event loop answers. No dependency is checked: a database outage is not
  // cured by restarting the gateway (the requests get 503 meanwhile), so an orchestrator must not kill it for one (D102).
  router.get('/healthz', (_req: Request, res: Response) => {
    res.locals['route'] = '/healthz';
    res.set('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok', mode: rt.config.sandbox ? 'sandbox' : 'production' });
  });

  // Readiness: send this process traffic? The database (and Redis when REDIS_URL is set) answered within a bound,
  // and the process is not draining; else 503 naming what failed (D102).
  router.get('/readyz', async (_req: Request, res: Response) => {
    res.locals['route'] = '/readyz';
    res.set('Cache-Control', 'no-store');
    const report = await rt.readiness.check();
    if (!report.ready) res.set('Retry-After', '1');
    res
      .status(report.ready ? 200 : 503)
      .json({ status: report.status, checks: report.checks, ...(report.ready ? {} : { failing: report.failing }) });
  });

  // Static documentation site (built by `npm run docs`), under its own CSP (D40).
  const docsDir = options.docsDir ?? DEFAULT_DOCS_DIR;
  router.use('/docs', (_req: Request, res: Response, next: NextFunction) => {
    res.locals['route'] = '/docs/*';
    res.set(DOCS_HEADERS);
    if (!existsSync(docsDir)) {
      res.status(404).json(errorBody(404, 'ERR_REQUEST_404', 'Documentation site not built: run npm run docs'));
      return;
    }
    next();
  });
  router.use('/docs', express.static(docsDir, { index: 'index.html', fallthrough: true, redirect: true }));
  router.use('/docs', (_req: Request, res: Response) => {
    res.status(404).json(errorBody(404, 'ERR_REQUEST_404', 'No such documentation page'));
  });

  // A browser opening the gateway's address lands on links to the docs, not on a JSON 404.
  router.get('/', (req: Request, res: Response) => {
    res.locals['route'] = '/';
    const mode = rt.config.sandbox ? 'sandbox' : 'production';
    if (req.accepts(['html', 'json']) === 'json') {
      res.status(200).json({ name: 'Paygate', mode, links: HOME_LINKS });
      return;
    }
    res
      .status(200)
      .set({ 'Content-Security-Policy': HOME_PAGE_CSP, 'Referrer-Policy': 'no-referrer' })
      .type('html')
      .send(renderHomePage(mode));
  });
  return router;
}

/**
 * Everything the gateway does before the scaffold's dispatch, as the scaffold's `onRequest` (D148; D180: in the
 * scaffold's own layer, so a request passes ONE layer of Express's router to reach its operation): the request id and
 * access line, the API's cache headers, sandbox gating, the session-id guard, and the gateway's own routes for their
 * paths only. The steps and their order are those of the separate middlewares it replaced.
 */
function gatewayMiddleware(rt: ReferenceRuntime, options: ReferenceAppOptions): RequestHandler {
  const { logger } = options;
  const beginLog = requestLogging(logger as Parameters<typeof requestLogging>[0]);
  const sessionGuard = rejectMalformedSessionIds();
  const own = ownRoutes(rt, options);

  return (req: Request, res: Response, next: NextFunction) => {
    beginLog(req, res);
    const path = req.path;
    // API answers carry personal and payment data: never cached by a browser or a proxy, never content-sniffed. (The
    // checkout pages set their own, stricter headers; the static /docs site may be cached.)
    if (!path.startsWith('/docs')) {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Content-Type-Options', 'nosniff');
    }
    // Sandbox-only operations do not exist outside sandbox mode (before auth, so nothing hints at them).
    // (rt.config per request: the runtime is late-bound, opened after the app is built)
    if (under(path, '/sandbox') && !rt.config.sandbox) {
      res.locals['route'] = '/sandbox/*';
      res.status(404).json(errorBody(404, 'ERR_REQUEST_404', 'No such route'));
      return;
    }
    // A checkout session id is a credential: every malformed one is ERR_AUTH_000, whatever its length (the guard's
    // paths are under these two prefixes).
    if (path.startsWith('/checkout/') || path.startsWith('/sandbox/checkout/')) {
      sessionGuard(req, res, next);
      return;
    }
    if (isOwnRoute(path)) own(req, res, next);
    else next();
  };
}

/**
 * The reference gateway's HTTP app: the generated scaffold (`createApp` from @paygate/server: routing, request and
 * response validation, error envelope) with credentials auth, the database-backed rate limit, the idempotency
 * wrapper, sandbox gating, health, docs and document download.
 */
export function createReferenceApp(rt: ReferenceRuntime, options: ReferenceAppOptions): Express {
  const { logger } = options;
  const app = createApp<Principal>({
    handlers: createHandlers(rt),
    around: handlerHook(rt),
    logger,
    // the request id on the scaffold's own lines about a request (D165)
    requestLogFields: (_req, res) => ({ req_id: requestIdOf(res) }),
    ...(options.validateResponses !== undefined ? { validateResponses: options.validateResponses } : {}),
    onRequest: gatewayMiddleware(rt, options),
    authenticators: { ClientId: credentialPair(rt), ClientSecret: credentialPair(rt) },
    rateLimit: async ({ req, res, principal, operation }) => {
      const key = (principal as Principal | undefined)?.clientId ?? `ip:${req.ip ?? 'unknown'}`;
      await applyRateLimit(rt, res, key, options.rateLimit, BROWSER_OPERATIONS.has(operation.operationId));
    },
  });
  // Behind a load balancer the socket address is the proxy's: PAYGATE_TRUST_PROXY says whose X-Forwarded-For to
  // believe, so per-client limits and logs see the shopper's address (unset: nobody's). No automatic ETag: the scaffold
  // turns it off (D85: API answers are `Cache-Control: no-store` and the spec declares no 304 for them; what is
  // cacheable sets its own ETag, the checkout SDK, and /docs is served by express.static, which sets its own).
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  return app;
}
