import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { idempotentOperationIds as generatedIdempotentOperationIds } from '@paygate/contract';
import {
  createApp,
  HttpError,
  HttpErrorWithPage,
  type Handlers,
  type HandlerHook,
  type Logger,
  type SchemeAuthenticator,
} from '@paygate/server';
import { createHandlers, type Principal } from './handlers.js';
import { authenticationError, errorBody, UNAVAILABLE_RETRY_AFTER_SECONDS, withErrorMapping } from './http/errors.js';
import type { ReferenceRuntime } from './runtime.js';
import { rejectMalformedSessionIds } from './checkout/session-guard.js';
import { renderBusyPage, renderUnavailablePage, RESULT_PAGE_CSP } from './checkout/redirect.js';
import { withIdempotency } from './idempotency/around-handler.js';
import { requestIdOf, requestLogging } from './http/logger.js';
import { isOwnRoute, ownRoutes, under } from './http/own-routes.js';

export { DOCS_CSP, DEFAULT_DOCS_DIR } from './http/own-routes.js';

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

/** Operation ids that declare the `Idempotency-Key` header (generated in the contract's route table). */
export function idempotentOperationIds(): ReadonlySet<string> {
  return generatedIdempotentOperationIds;
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
    // a read (no Idempotency-Key declared) gets the error mapping only: no claim, no transaction scope (D148 gateway's pre-scaffold work in one middleware)
    return idempotent.has(call.operationId) ? withIdempotency(rt, call, inFlight) : withErrorMapping(call.next);
  };
  return (call) => {
    // Bounded waits per tenant (D363 tenant share of the database pool): an authenticated request runs in its tenant's share of the pool (a shopper's
    // pages carry no credential and are not counted)
    const principal = call.ctx.principal as Principal | undefined;
    const share = rt.tenantShare;
    if (share === undefined || principal === undefined) return handle(call);
    return share.run(tenantOf(principal), () => handle(call));
  };
}

/** Whose share of the pool a request uses (D363 tenant share of the database pool): the merchant's, or the partner's for a partner credential. */
function tenantOf(principal: Principal): string {
  return principal.kind === 'merchant' ? `merchant:${principal.merchantId}` : `partner:${principal.partnerId}`;
}

/**
 * The authenticator of both Paygate schemes (D120 one authenticator per security scheme). `ClientId` and `ClientSecret` form one requirement (an AND): the
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
    // the pair's second scheme passes the principal on without a promise (D166 per-request work trimmed)
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
    // the request id on the scaffold's own lines about a request (D165 no AsyncLocalStorage per request)
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
