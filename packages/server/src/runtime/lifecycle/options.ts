/**
 * The options of `createApiApp` and the public types its steps share: one hook per lifecycle step (lifecycle/index.ts
 * lists them in request order).
 */
import type { Request, RequestHandler, Response, Express } from 'express';
import type { ErrorResponse, RuntimeError } from '../error-shapes.js';
import type { OperationRequestValidators } from '../request-validation.js';
import type { SchemeAuthenticators } from '../security.js';
import type { ApiDocument, HandlerContext, Logger, OperationRoute, SecurityRequirement, SecuritySchemeInfo } from '../types.js';
import type { RenderedResponse } from './serialize.js';

/** What `createApiApp` needs from the generated code. */
export interface ApiSpec {
  /** The bundled document (response validation reads it). */
  apiDocument: ApiDocument;
  operations: readonly OperationRoute[];
  securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>;
  /** Precompiled request validators (request-validators.gen.ts): one entry per operation. */
  requestValidators: Readonly<Record<string, OperationRequestValidators>>;
}

export interface AuthenticateInput {
  req: Request;
  operation: OperationRoute;
  /** Alternatives (OR) of requirements (AND of schemes); never empty (public operations skip the hook). */
  requirements: readonly SecurityRequirement[];
  /** The security schemes by name (header names for apiKey schemes). */
  schemes: Readonly<Record<string, SecuritySchemeInfo>>;
}

export interface RateLimitInput<TPrincipal> {
  req: Request;
  res: Response;
  operation: OperationRoute;
  principal: TPrincipal;
}

export interface UploadLimits {
  /** Max bytes per file (default 5 MiB). */
  fileSize?: number;
  /** Max files per request (default 1). */
  files?: number;
  /** Max non-file fields (default 20). */
  fields?: number;
  /** Max bytes per non-file field (default 64 KiB). */
  fieldSize?: number;
}

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type NumberOf<S> = S extends `${infer N extends number}` ? N : never;
/** 100-399: the statuses that are not errors. */
type NonErrorStatus = NumberOf<`${1 | 2 | 3}${Digit}${Digit}`>;

/** Every error response (4xx, 5xx, `default`) the spec declares for any operation of `THandlers`. */
export type DeclaredErrorResult<THandlers> = {
  [K in keyof THandlers]: THandlers[K] extends (...args: never[]) => infer R ? Exclude<Awaited<R>, { status: NonErrorStatus }> : never;
}[keyof THandlers];

/**
 * Your own error mapper: the scaffold's answer (`shaped`, from the spec) is passed in; return a response the spec
 * declares (type-checked against the declared error schemas) or undefined to send `shaped`.
 */
export type ErrorMapper<THandlers> = (
  error: RuntimeError,
  context: { operation: OperationRoute | undefined; req: Request; shaped: ErrorResponse },
) => DeclaredErrorResult<THandlers> | undefined;

/**
 * What the app does for an operation without a handler (D218 missing handlers refused or answered 501): `'refuse'` (the default) throws at start-up naming
 * them (`missing handler(s)`); `'respond'` starts with the handlers given and answers the others 501 in the spec's
 * error shape, after authentication and request validation, listing them once at start-up (gradual implementation).
 */
export type NotImplementedMode = 'refuse' | 'respond';

/**
 * The options of `createApiApp`: every handler (the default), or with `notImplemented: 'respond'` any of them (the
 * handlers map is then `Partial`).
 */
export type CreateAppOptions<THandlers, TPrincipal = unknown, TScheme extends string = string> =
  | (CommonAppOptions<THandlers, TPrincipal, TScheme> & {
      /** One handler per operation of the spec. */
      handlers: THandlers;
      /** Every operation needs a handler (the default): the app refuses to start naming the missing ones. */
      notImplemented?: 'refuse';
    })
  | (CommonAppOptions<THandlers, TPrincipal, TScheme> & {
      /** Handlers for the operations implemented so far. */
      handlers: Partial<THandlers>;
      /** Operations without a handler answer 501 in the spec's error shape (listed once at start-up). */
      notImplemented: 'respond';
    });

/** Everything `createApiApp` takes besides the handlers. */
export interface CommonAppOptions<THandlers, TPrincipal = unknown, TScheme extends string = string> {
  /**
   * Called for every operation with security requirements, before validation. Return the principal (put on
   * `ctx.principal`) or throw (an `HttpError`, else 401). Covers every scheme; prefer `authenticators` (per scheme).
   */
  authenticate?: (input: AuthenticateInput) => TPrincipal | Promise<TPrincipal>;
  /**
   * One authenticator per security scheme of the spec (keyed by its name in `components.securitySchemes`): it gets
   * the credential the scheme carries (apiKey header/query/cookie, http bearer/basic, oauth2/openIdConnect bearer)
   * and returns the principal, or undefined / throws to refuse (401). The app refuses to start when an operation
   * declares `security` that neither these nor `authenticate` cover (D120).
   */
  authenticators?: SchemeAuthenticators<TPrincipal, TScheme>;
  /**
   * Serve operations whose security no authenticator covers, unauthenticated (prototypes only: logged as an error at
   * start-up, naming each operation).
   */
  allowUnauthenticated?: boolean;
  /** Runs around every handler (a typed middleware: idempotency, caching, auditing...). */
  around?: HandlerHook<THandlers, TPrincipal>;
  /**
   * Shape the scaffold's own error answers yourself (default: from the spec, D119). Its answer is sent with the
   * content type it names, else the one the spec declares for its status (D215 error schema filled by role). Given, it also lets the app start
   * when a declared error schema cannot be filled (those answers are then its to shape; undefined sends problem+json).
   */
  errorMapper?: ErrorMapper<THandlers>;
  /**
   * Validate handler responses against the spec with express-openapi-validator (default: on unless
   * NODE_ENV === 'production'). Requests are always validated, by the precompiled validators.
   */
  validateResponses?: boolean;
  /** JSON / urlencoded body limit (default '1mb'). */
  bodyLimit?: string | number;
  uploadLimits?: UploadLimits;
  /** Called after authentication, before validation; throw `HttpError(429, 'ERR_RATE_429', ...)` to reject (it may set headers). */
  rateLimit?: (input: RateLimitInput<TPrincipal>) => void | Promise<void>;
  /**
   * Default: outside production, a console logger that prints every 500 and every response-validation failure with
   * the operation and the JSON pointer; in production, silent.
   */
  logger?: Logger;
  /**
   * Fields added to each line the scaffold logs about a request (a failed request, a response that does not match
   * the spec), e.g. the request id the app's own logging assigned (D165: no per-request async context is needed for it).
   */
  requestLogFields?: (req: Request, res: Response) => Record<string, unknown>;
  /** Runs first on the new app (mount health checks, static files, request logging, trust proxy...). */
  before?: (app: Express) => void;
  /**
   * Middleware every request goes through, right after the scaffold's first steps and before anything `before`
   * registers and the operations, without an Express layer of its own (D180: each layer of Express's router is a path
   * match, a params merge and a `next()` per request; without `before`, the first steps, this and the dispatch to
   * the operations are ONE layer). Call `next()` to go on (`next(error)` to the error handler), or answer.
   */
  onRequest?: RequestHandler;
}

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The `logger` option's default: {@link consoleLogger} outside production, silent in production. */
export function defaultLogger(): Logger {
  return process.env.NODE_ENV === 'production' ? silentLogger : consoleLogger;
}

/** Development's default: warnings and errors to stderr, one line each (info stays quiet). */
export const consoleLogger: Logger = {
  info: () => undefined,
  warn: (obj, msg) => console.warn(`[paygate] ${msg ?? 'warning'}`, obj),
  error: (obj, msg) => console.error(`[paygate] ${msg ?? 'error'}`, obj),
};

type RequestOf<F> = F extends (request: infer Q, ...rest: never[]) => unknown ? Q : never;
type ResultOf<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/** What a handler hook sees of one call: the operation, the typed request, the typed result (`next`). */
export interface HandlerCall<TRequest, TResult, TPrincipal = unknown> {
  operationId: string;
  operation: OperationRoute;
  request: TRequest;
  ctx: HandlerContext<TPrincipal>;
  /** Runs the handler (or the next hook). */
  next: () => Promise<TResult>;
  /** What the scaffold sends for a result, or for an error (shaped as the spec declares, D119), byte for byte. */
  render: (outcome: { result: TResult } | { error: unknown }) => RenderedResponse;
}

/**
 * A typed hook around every handler (cross-cutting behaviour: idempotency, caching, auditing): it gets the call and
 * returns the handler's result (typed per operation) or a rendered response.
 */
export type HandlerHook<THandlers, TPrincipal = unknown> = <K extends keyof THandlers & string>(
  call: HandlerCall<RequestOf<THandlers[K]>, ResultOf<THandlers[K]>, TPrincipal>,
) => Promise<ResultOf<THandlers[K]> | RenderedResponse>;
