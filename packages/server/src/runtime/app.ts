import express, { type Application, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { closeOnEarlyAnswer, isPlainJson, limitInBytes, readPlainJson, readingAtMost, rejectDeclaredOversize } from './body-limits.js';
import {
  classifyError,
  HttpError,
  HttpErrorWithPage,
  INVALID_CREDENTIALS,
  MISSING_CREDENTIALS,
  RUNTIME_ERROR_CODES,
  VALIDATION_MESSAGE,
} from './errors.js';
import { reportUnfillable, SpecErrorShapes, type ErrorResponse, type RuntimeError } from './error-shapes.js';
import { createDispatcher } from './dispatch.js';
import { pathParameterEnums, sentPath } from './route-template.js';
import { coverage, createSchemeGuard, presentsCredentials, type SchemeAuthenticators } from './security.js';
import { compareRoutes, createRequestValidator, type OperationRequestValidators } from './request-validation.js';
import { createResponseValidator } from './response-validation.js';
import { ResponseSerializers } from './response-serializers.js';
import type {
  ApiDocument,
  HandlerContext,
  Logger,
  OperationRoute,
  SecurityRequirement,
  SecuritySchemeInfo,
  UploadedFile,
} from './types.js';

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

/** Development's default: warnings and errors to stderr, one line each (info stays quiet). */
export const consoleLogger: Logger = {
  info: () => undefined,
  warn: (obj, msg) => console.warn(`[paygate] ${msg ?? 'warning'}`, obj),
  error: (obj, msg) => console.error(`[paygate] ${msg ?? 'error'}`, obj),
};

const JSON_TYPES = ['application/json', 'application/*+json'];

function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(.+\+)?json/.test(mediaType);
}

/** Media types to send for a status: the exact key, else `NXX`, else `default`. */
function declaredMediaTypes(operation: OperationRoute, status: number): readonly string[] {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default ?? [];
}

function withFiles(operation: OperationRoute, req: Request): unknown {
  const files = collectFiles(operation, req);
  return Object.keys(files).length > 0 ? { ...(req.body as object), ...files } : req.body;
}

function collectFiles(operation: OperationRoute, req: Request): Record<string, UploadedFile | UploadedFile[]> {
  const files = (req as Request & { files?: UploadedFile[] }).files;
  const out: Record<string, UploadedFile | UploadedFile[]> = {};
  if (!Array.isArray(files)) return out;
  for (const field of operation.fileFields) {
    const matching = files.filter((f) => f.fieldname === field.name);
    if (field.multiple) out[field.name] = matching;
    else if (matching[0] !== undefined) out[field.name] = matching[0];
  }
  return out;
}

interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, unknown>;
  contentType?: string;
}

/**
 * A response already rendered: the status, the content type the scaffold chose (the handler's, else the first one
 * declared for the status), the headers and the exact body it sends. `render` in a handler hook returns one (what
 * the scaffold would send for a result or an error), and a hook may return one instead of a result, e.g. an
 * idempotent replay of stored bytes; it is sent byte for byte.
 */
export class RenderedResponse {
  constructor(
    readonly status: number,
    /** null when there is no body. */
    readonly contentType: string | null,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string | Uint8Array | undefined,
  ) {}
}

/** JSON exactly as Express's `res.json` writes it (the app's `json replacer`, `json spaces` and `json escape`). */
function jsonText(app: Application, body: unknown): string {
  const settings = app.settings as Record<string, unknown>;
  const replacer = settings['json replacer'] as ((this: unknown, key: string, value: unknown) => unknown) | undefined;
  const spaces = settings['json spaces'] as string | number | undefined;
  let text = replacer || spaces ? JSON.stringify(body, replacer, spaces) : JSON.stringify(body);
  if (settings['json escape']) text = text.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return text;
}

/**
 * A handler's JSON body: through the serializer compiled from the response's schema (undeclared properties stripped,
 * D142), unless responses are validated (development: what the handler returned is sent and checked as is, so that a
 * wrong type is reported rather than coerced) or the app asks for Express's own JSON (`json replacer`, `json spaces`,
 * `json escape` settings).
 */
function jsonBody(
  app: Application,
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  status: number,
  contentType: string,
  body: unknown,
): string {
  const settings = app.settings as Record<string, unknown>;
  if (serializers === undefined || settings['json replacer'] || settings['json spaces'] || settings['json escape'])
    return jsonText(app, body);
  return serializers.stringify(operation, status, contentType, body);
}

/** The one serialisation of a handler result (sent by the scaffold, and what a hook's `render` returns). */
function renderResult(
  app: Application,
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  result: HandlerResult,
): RenderedResponse {
  if (typeof result !== 'object' || result === null || !Number.isInteger(result.status)) {
    throw new Error(`Handler ${operation.operationId} returned no { status }`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) if (value !== undefined) headers[name] = String(value);
  if (result.body === undefined) return new RenderedResponse(result.status, null, headers, undefined);
  const contentType = result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json';
  const body = isJsonMediaType(contentType)
    ? jsonBody(app, serializers, operation, result.status, contentType, result.body)
    : typeof result.body !== 'string' && !(result.body instanceof Uint8Array)
      ? jsonText(app, result.body)
      : result.body;
  return new RenderedResponse(result.status, contentType, headers, body);
}

/** `Content-Type` as Express's `res.send` writes it for a text body: the declared type with `charset=utf-8`. */
const textContentTypes = new Map<string, string>();
function textContentType(contentType: string): string {
  let value = textContentTypes.get(contentType);
  if (value === undefined) {
    value = `${contentType.replace(/;\s*charset=[^;]*/i, '')}; charset=utf-8`;
    if (textContentTypes.size < 256) textContentTypes.set(contentType, value);
  }
  return value;
}

/**
 * Whether a response can be written directly, in one `res.end` (D141 one dispatch middleware with find-my-way): anything Express's `res.send` would change is
 * left to it: an automatic ETag (the app's `etag` setting), a conditional GET (304 from `req.fresh`), HEAD, and the
 * statuses without a body.
 */
function writesDirectly(req: Request, status: number): boolean {
  return (
    !req.app.settings['etag fn'] &&
    req.headers['if-none-match'] === undefined &&
    req.headers['if-modified-since'] === undefined &&
    req.method !== 'HEAD' &&
    status !== 204 &&
    status !== 304 &&
    (status >= 200 || status < 100)
  );
}

/** Status, headers and body in one write (`res.end`), or through Express's `res.send` when it has work to do. */
function writeBody(
  req: Request,
  res: Response,
  status: number,
  headers: Readonly<Record<string, unknown>> | undefined,
  contentType: string,
  body: string | Buffer,
): void {
  if (headers !== undefined)
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    }
  res.statusCode = status;
  if (!writesDirectly(req, status)) {
    res.type(contentType).send(body);
    return;
  }
  if (typeof body === 'string') {
    res.setHeader('Content-Type', textContentType(contentType));
    res.setHeader('Content-Length', Buffer.byteLength(body));
  } else {
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', body.length);
  }
  res.end(body);
}

/**
 * Sends a handler result: JSON serialised once (`renderResult` writes the same text), anything else as is. `observed`:
 * response validation watches `res.json` (development), so JSON goes through it.
 */
function sendResult(
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  req: Request,
  res: Response,
  result: HandlerResult,
  observed: boolean,
): void {
  if (typeof result !== 'object' || result === null || !Number.isInteger(result.status)) {
    throw new Error(`Handler ${operation.operationId} returned no { status }`);
  }
  if (result.body === undefined) {
    if (result.headers !== undefined)
      for (const name in result.headers) {
        const value = result.headers[name];
        if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
      }
    res.statusCode = result.status;
    res.end();
    return;
  }
  const contentType = result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json';
  if (observed && isJsonMediaType(contentType)) {
    for (const [name, value] of Object.entries(result.headers ?? {}))
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    // the validator checks what the handler returned (the serializer would coerce a wrong type and hide the lie); the
    // compiled serializer writes production's answers
    res.status(result.status).type(contentType).json(result.body);
  } else if (isJsonMediaType(contentType))
    writeBody(
      req,
      res,
      result.status,
      result.headers,
      contentType,
      jsonBody(req.app, serializers, operation, result.status, contentType, result.body),
    );
  else if (typeof result.body === 'string') writeBody(req, res, result.status, result.headers, contentType, result.body);
  else if (result.body instanceof Uint8Array)
    writeBody(
      req,
      res,
      result.status,
      result.headers,
      contentType,
      Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength),
    );
  else {
    // neither text nor bytes under a non-JSON media type: what Express's `res.send` makes of it, as before
    for (const [name, value] of Object.entries(result.headers ?? {}))
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    res.status(result.status).type(contentType).send(result.body);
  }
}

function sendRendered(req: Request, res: Response, rendered: RenderedResponse): void {
  if (rendered.body === undefined || rendered.contentType === null) {
    res.status(rendered.status).set(rendered.headers);
    res.end();
    return;
  }
  const body =
    typeof rendered.body === 'string'
      ? rendered.body
      : Buffer.from(rendered.body.buffer, rendered.body.byteOffset, rendered.body.byteLength);
  writeBody(req, res, rendered.status, rendered.headers, rendered.contentType, body);
}

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

/**
 * A query string is `application/x-www-form-urlencoded`, where `+` is a space (what `URLSearchParams` writes, and
 * what our own `next` links contain). A raw `+` would otherwise be an unencoded reserved character, so spell it `%20`
 * before anything reads the query (docs/request-validation.md, section 4).
 */
export const formEncodedQuerySpaces: RequestHandler = (req, _res, next) => {
  spaceQuery(req);
  next();
};

function spaced(url: string): string {
  const start = url.indexOf('?');
  return start === -1 || !url.includes('+', start) ? url : url.slice(0, start) + url.slice(start).replaceAll('+', '%20');
}

/** {@link formEncodedQuerySpaces} without the middleware around it. */
function spaceQuery(req: Request): void {
  // Validation reads `originalUrl`, Express routing reads `url`.
  req.url = spaced(req.url);
  req.originalUrl = spaced(req.originalUrl);
}

/**
 * The scaffold's first steps, `closeConnectionOnEarlyAnswer` then {@link formEncodedQuerySpaces}, as ONE
 * Express layer (D166: every layer is a path match and a `next()` of Express's router per request).
 */
const firstSteps: RequestHandler = (req, res, next) => {
  closeOnEarlyAnswer(req, res);
  spaceQuery(req);
  next();
};

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path segment whose percent-encoding does not decode (`/pg/orders/%E0%A4%A`) would make the router throw while
 * matching, before any route knows which parameter it was. Answer 400 naming that parameter of the path template the
 * request matches (or `path` when none does) instead.
 */
export function rejectMalformedPathEncoding(templates: readonly string[]): RequestHandler {
  const split = templates.map((t) => t.split('/'));
  return (req, _res, next) => {
    const raw = req.path.split('/');
    const bad = raw.findIndex((segment) => segment.includes('%') && !decodes(segment));
    if (bad === -1) {
      next();
      return;
    }
    const template = split.find(
      (t) => t.length === raw.length && t.every((seg, i) => seg === raw[i] || (/^\{[^}]+\}$/.test(seg) && (i === bad || decodes(raw[i]!)))),
    );
    const parameter = template?.[bad]?.match(/^\{([^}]+)\}$/)?.[1];
    next(
      new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
        [parameter ?? 'path']: 'contains malformed percent-encoding (each % must start a UTF-8 escape such as %2F)',
      }),
    );
  };
}

/**
 * The JSON, urlencoded and text body parsers every operation route runs (multipart is parsed per operation): 413 from
 * the Content-Length before reading, and no byte read past the limit of a chunked body (D96 early answers close the connection, bodies counted).
 */
export function bodyParsers(limit: string | number, multipartLimitBytes?: number): RequestHandler[] {
  const limitBytes = limitInBytes(limit);
  const oversize = rejectDeclaredOversize(limitBytes, multipartLimitBytes);
  const chain = [
    // A JSON body is any JSON value (RFC 8259), not only an object or array: the operation's schema says which it
    // takes (`type: string` under application/json), and refuses the others naming the reason (D431 a JSON body may be any JSON value)
    readingAtMost(express.json({ limit, type: JSON_TYPES, strict: false }), limitBytes),
    readingAtMost(express.urlencoded({ limit, extended: false }), limitBytes),
    readingAtMost(express.text({ limit, type: 'text/*' }), limitBytes),
  ];
  // ONE step (D182 body parsers are one step): plain JSON with a Content-Length is read by readPlainJson (body-parser's answers without its
  // per-request machinery); everything else goes through body-parser's three parsers as before
  return [
    (req, res, next) =>
      oversize(req, res, (error?: unknown) => {
        if (error !== undefined) next(error);
        else if (!req.readableEnded && isPlainJson(req, limitBytes)) readPlainJson(req, next);
        else runChain(chain, req, res, next);
      }),
  ];
}

/** `handlers` in order, as Express would run them; an error skips the rest. */
function runChain(handlers: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const step = (error?: unknown): void => {
    const handler = handlers[index++];
    if ((error !== undefined && error !== null) || handler === undefined) done(error);
    else void handler(req, res, step);
  };
  step();
}

/**
 * `Allow` per path: the methods the route table declares on it, in its order (GET, PUT, POST, DELETE, OPTIONS,
 * HEAD, PATCH, TRACE), and the paths ordered for matching (static segments first).
 */
export function allowByPath(operations: readonly OperationRoute[]): { path: string; expressPath: string; allow: string }[] {
  // templates a client cannot tell apart (`/tags/{arn}` and `/tags/{arn}#tagKeys`, `/rides?page={page}`) are one
  // path: one Allow (D410 every path template real specs use is routed)
  const routeOf = (template: string) => sentPath(template).replace(/\{[^}]+\}/g, '{}');
  const byRoute = new Map<string, { paths: string[]; expressPath: string; methods: string[] }>();
  for (const op of operations) {
    let entry = byRoute.get(routeOf(op.path));
    if (entry === undefined) byRoute.set(routeOf(op.path), (entry = { paths: [], expressPath: op.expressPath, methods: [] }));
    if (!entry.paths.includes(op.path)) entry.paths.push(op.path);
    const method = op.method.toUpperCase();
    if (!entry.methods.includes(method)) entry.methods.push(method);
  }
  return [...byRoute.values()]
    .sort((a, b) => compareRoutes(a.expressPath, b.expressPath))
    .flatMap((e) => e.paths.map((path) => ({ path, expressPath: e.expressPath, allow: e.methods.join(', ') })));
}

/** The JSON path of the first string holding a NUL character, or undefined. */
export function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = findNulCharacter(child, path === '' ? key : Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * No field of this API needs a NUL character, and PostgreSQL text cannot store one: answer 400 naming the field
 * instead of letting the database fail the request with a 500. Runs on parsed fields (JSON, form, multipart
 * fields and the query), never on uploaded file bytes.
 */
function assertNoNulCharacters(req: Request, query: unknown): void {
  const where = findNulCharacter(req.body) ?? findNulCharacter(query);
  if (where !== undefined) {
    throw new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
      [where || 'body']: 'must not contain NUL (\\u0000) characters',
    });
  }
}

/** The typed request a handler receives (after validation): params, query, lower-cased headers, body with files. */
export function handlerRequest(
  operation: OperationRoute,
  req: Request,
): { params: Record<string, unknown>; query: Record<string, unknown>; headers: Request['headers']; body: unknown } {
  // Express 5 parses the query string again on every read of `req.query`: read once, and not at all when there is no
  // query string and validation did not pin one (D166: it would parse the URL for an empty object)
  const query = Object.hasOwn(req, 'query') || req.url.includes('?') ? req.query : {};
  assertNoNulCharacters(req, query);
  const body = operation.fileFields.length === 0 ? req.body : withFiles(operation, req);
  return { params: { ...req.params }, query: { ...(query as object) }, headers: req.headers, body };
}

/** A response-validation failure (express-openapi-validator: status 500, `errors[].path` JSON pointers). */
function responseValidationErrors(err: unknown): { path: string; message: string }[] | undefined {
  if (typeof err !== 'object' || err === null || (err as { status?: unknown }).status !== 500) return undefined;
  const errors = (err as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0 || !String((errors[0] as { path?: unknown }).path ?? '').startsWith('/response'))
    return undefined;
  return errors.map((e: { path?: unknown; message?: unknown }) => ({ path: String(e.path ?? ''), message: String(e.message ?? '') }));
}

/**
 * The one error handler: the error classified (errors.ts), shaped as the spec declares (error-shapes.ts, or the
 * app's `errorMapper`), `Allow` on 405, internals only to the log.
 */
export function errorHandler(
  logger: Logger,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
  requestLogFields?: (req: Request, res: Response) => Record<string, unknown>,
) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = classifyError(err);
    const operation = res.locals.operation as OperationRoute | undefined;
    if (error.internal) {
      const invalidResponse = responseValidationErrors(err);
      if (invalidResponse !== undefined) {
        logger.error(
          {
            ...requestLogFields?.(req, res),
            err,
            operationId: operation?.operationId,
            method: req.method,
            path: req.path,
            errors: invalidResponse,
          },
          `response of ${operation?.operationId ?? req.path} does not match the spec`,
        );
      } else {
        logger.error(
          { ...requestLogFields?.(req, res), err, method: req.method, path: req.path, operationId: operation?.operationId },
          'request failed',
        );
      }
    }
    if (err instanceof HttpErrorWithPage && req.accepts(['application/json', err.page.contentType]) === err.page.contentType) {
      res.status(error.status).set(error.headers).type(err.page.contentType).send(err.page.text);
      return;
    }
    const response = shapedError(req, error, operation, shapes, errorMapper);
    res.status(response.status).set(response.headers);
    // no body where the status is declared without content (D423 a status declared without content answers without a body); text under a text/* media type (D424 error answers in the declared media type)
    if (response.contentType === null || response.body === undefined) res.end();
    else if (!isJsonMediaType(response.contentType) && typeof response.body === 'string')
      res.type(response.contentType).send(response.body);
    else res.type(response.contentType).json(response.body);
  };
}

/** The error in the spec's shape, or the app's `errorMapper`'s. */
function shapedError(
  req: Request,
  error: RuntimeError,
  operation: OperationRoute | undefined,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
): ErrorResponse {
  const shaped = shapes.respond(error, operation, { path: req.path });
  const own = errorMapper?.(error, { operation, req, shaped }) as
    | { status: number; body?: unknown; contentType?: string; headers?: Record<string, unknown> }
    | undefined;
  if (own === undefined) return shaped;
  return {
    status: own.status,
    body: own.body,
    // the declared content type of the mapper's status (D215 error schema filled by role), not the problem+json of a schema the scaffold could not fill
    contentType: own.contentType ?? shapes.declaredMediaType(own.status, operation) ?? 'application/json',
    headers: { ...shaped.headers, ...(own.headers as Record<string, string> | undefined) },
  };
}

/** What the error handler sends for an error, rendered (a hook records it, e.g. an idempotent 4xx). */
function renderError(
  app: Application,
  req: Request,
  error: RuntimeError,
  operation: OperationRoute | undefined,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
): RenderedResponse {
  const response = shapedError(req, error, operation, shapes, errorMapper);
  return new RenderedResponse(response.status, response.contentType, response.headers, errorBodyText(app, response));
}

/**
 * The bytes of an error answer: none where the status is declared without content (D423 a status declared without content answers without a body), the text itself under a
 * `text/*` media type (D424 error answers in the declared media type), else JSON.
 */
function errorBodyText(app: Application, response: ErrorResponse): string | undefined {
  if (response.contentType === null || response.body === undefined) return undefined;
  if (!isJsonMediaType(response.contentType) && typeof response.body === 'string') return response.body;
  return jsonText(app, response.body);
}

/**
 * Builds the Express app for a generated spec: one route per operation running auth + rate limit -> body parsers ->
 * precompiled request validation (multipart included) -> optional response validation -> the typed handler; then
 * 405/404 for other requests and one error mapper.
 */
export function createApiApp<THandlers extends object, TPrincipal = unknown, TScheme extends string = string>(
  spec: ApiSpec,
  options: CreateAppOptions<THandlers, TPrincipal, TScheme>,
): Express {
  const logger = options.logger ?? (process.env.NODE_ENV === 'production' ? silentLogger : consoleLogger);
  const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
  const limits = options.uploadLimits ?? {};
  // why the cast: THandlers maps each operation id to its own typed handler; dispatching by id at run time needs one
  // common signature, which TypeScript cannot derive from the per-key types (the generated Handlers type checks them)
  const handlers = options.handlers as unknown as Record<
    string,
    ((req: unknown, ctx: HandlerContext<TPrincipal>) => Promise<HandlerResult>) | undefined
  >; // see above
  // Operations whose parameters the scaffold cannot parse were skipped by the generator: answered 501, no handler needed.
  const skipped = new Map(
    spec.operations.flatMap((op) => {
      const reason = spec.requestValidators[op.operationId]?.unsupported;
      return reason === undefined ? [] : [[op.operationId, reason] as const];
    }),
  );
  const missing = spec.operations
    .filter((op) => !skipped.has(op.operationId) && typeof handlers[op.operationId] !== 'function')
    .map((op) => op.operationId);
  const notImplemented = new Set(options.notImplemented === 'respond' ? missing : []);
  if (missing.length > 0 && options.notImplemented !== 'respond')
    throw new Error(
      `createApp: missing handler(s) for ${missing.join(', ')}. Write them, or pass \`notImplemented: 'respond'\` to answer them 501 until they are written.`,
    );

  const app = express();
  // Paths are matched exactly as the spec writes them (Express's default ignores a trailing slash and case, so
  // `/pg/orders/{id}/` would reach the handler of `/pg/orders/{id}`): the other spelling is 404 (decision B9). Set
  // before anything touches `app.router`, which reads these settings once when it is created.
  app.enable('strict routing');
  app.enable('case sensitive routing');
  app.disable('x-powered-by');
  // No automatic ETag: Express hashes every body it sends (SHA-1) to answer If-None-Match with 304, a status an API's
  // operations rarely declare; a handler that sets its own ETag still gets its 304 (D141 one dispatch middleware with find-my-way). `before` may re-enable it.
  app.set('etag', false);
  // First, so that every answer (the app's own routes included) sent while a body is still arriving closes the connection (D96 early answers close the connection, bodies counted).
  // With `onRequest` and no `before`, the first steps, `onRequest` and the dispatch are one layer (D180 onRequest hook and the one-layer scaffold): `dispatch`
  // is the dispatcher, assigned once the operations' steps are put together below.
  const onRequest = options.onRequest;
  let dispatch: RequestHandler | undefined;
  const oneLayer = options.before === undefined && onRequest !== undefined;
  if (onRequest === undefined) app.use(firstSteps);
  else
    app.use((req, res, next) => {
      closeOnEarlyAnswer(req, res);
      spaceQuery(req);
      if (!oneLayer) {
        onRequest(req, res, next);
        return;
      }
      onRequest(req, res, (error?: unknown) => {
        if (error !== undefined && error !== null) {
          next(error);
          return;
        }
        // what Express's layer does for a handler: a synchronous throw goes to the error handler (`onRequest` may
        // call this later, outside the layer's own try)
        try {
          dispatch!(req, res, next);
        } catch (thrown) {
          next(thrown);
        }
      });
    });
  options.before?.(app);

  // 1. Authentication and rate limiting, before any body is read or validated (first in each operation's route).
  // Security from the spec (D120 one authenticator per security scheme): every operation that declares `security` must be covered, or the app refuses to
  // start (unless `allowUnauthenticated`, a prototype's choice, logged as an error naming each operation).
  const authenticators: SchemeAuthenticators<TPrincipal> = options.authenticators ?? {};
  const uncovered = options.authenticate !== undefined ? [] : coverage(spec.operations, (scheme) => authenticators[scheme] !== undefined);
  if (uncovered.length > 0) {
    const list = uncovered.map((u) => `${u.operationId} (${u.schemes.join(', ')})`).join(', ');
    if (options.allowUnauthenticated !== true) {
      throw new Error(
        `createApp: ${uncovered.length} operation(s) declare security that no authenticator covers: ${list}. Pass \`authenticators\` (one per scheme: ${[...new Set(uncovered.flatMap((u) => u.schemes))].sort().join(', ')}) or \`authenticate\`; \`allowUnauthenticated: true\` serves them without authentication (prototypes only).`,
      );
    }
    logger.error(
      { operations: uncovered.map((u) => u.operationId) },
      `allowUnauthenticated: SERVING ${uncovered.length} OPERATION(S) THAT DECLARE SECURITY WITHOUT AUTHENTICATION: ${list}`,
    );
  }
  const uncoveredIds = new Set(uncovered.map((u) => u.operationId));
  // D219: a request that sent a credential of the operation's schemes and was refused is told so; one that sent none
  // is told they are missing; nothing says which scheme or which part failed.
  const refusal = (req: Request, operation: OperationRoute): HttpError =>
    new HttpError(
      401,
      RUNTIME_ERROR_CODES.auth,
      presentsCredentials(req, operation, spec.securitySchemes) ? INVALID_CREDENTIALS : MISSING_CREDENTIALS,
    );
  const schemeGuard = createSchemeGuard<TPrincipal>(authenticators, spec.securitySchemes, refusal);
  const authenticates = (operation: OperationRoute): boolean => operation.security.length > 0 && !uncoveredIds.has(operation.operationId);
  // No step at all for an operation without authentication and rate limit (the dispatcher sets `res.locals.operation`;
  // `ctx.principal` is then undefined).
  const guardFor = (operation: OperationRoute): RequestHandler | undefined =>
    !authenticates(operation) && options.rateLimit === undefined ? undefined : guardAsync(operation);
  const guardAsync =
    (operation: OperationRoute): RequestHandler =>
    async (req, res, next) => {
      try {
        let principal = undefined as TPrincipal;
        res.locals.operation = operation;
        if (authenticates(operation)) {
          try {
            principal =
              options.authenticate !== undefined
                ? await options.authenticate({ req, operation, requirements: operation.security, schemes: spec.securitySchemes })
                : await schemeGuard(req, operation);
          } catch (error) {
            throw error instanceof HttpError ? error : refusal(req, operation);
          }
        }
        res.locals.principal = principal;
        await options.rateLimit?.({ req, res, operation, principal });
        next();
      } catch (error) {
        next(error);
      }
    };

  // 2. Body parsers per media type (multipart is parsed per operation, with the upload limits).
  const uploadLimits = {
    fileSize: limits.fileSize ?? 5 * 1024 * 1024,
    files: limits.files ?? 1,
    fields: limits.fields ?? 20,
    fieldSize: limits.fieldSize ?? 64 * 1024,
  };
  // The largest multipart body the upload limits can accept: every file and field at its limit, plus 64 KiB of part
  // headers and boundaries. A Content-Length above it is 413 before reading (D96 early answers close the connection, bodies counted); a chunked body is 413 the moment it
  // passes it (D362 multipart bodies counted like the others).
  const multipartLimitBytes = uploadLimits.files * uploadLimits.fileSize + uploadLimits.fields * uploadLimits.fieldSize + 64 * 1024;
  const parsers = bodyParsers(options.bodyLimit ?? '1mb', multipartLimitBytes);

  // 3. Request validation (precompiled, always) and, when asked, response validation.
  const validators = spec.requestValidators;
  const missingValidators = spec.operations.filter((op) => validators[op.operationId] === undefined).map((op) => op.operationId);
  if (missingValidators.length > 0) {
    throw new Error(`createApp: request-validators.gen.ts has no validators for ${missingValidators.join(', ')} (npm run generate)`);
  }
  const paths = allowByPath(spec.operations);
  const allowOf = new Map(paths.map((p) => [p.path, p.allow]));

  // 4. The error shapes are built once, before any route: handler hooks render errors with them too.
  const shapes = new SpecErrorShapes(spec.apiDocument);
  const errorMapper = options.errorMapper as ErrorMapper<unknown> | undefined;
  // 429 and 501 are the runtime's own answers only with a rateLimit hook and with operations it does not serve
  const notAnswered = new Set([
    ...(options.rateLimit === undefined ? ['429'] : []),
    ...(notImplemented.size + skipped.size === 0 ? ['501'] : []),
  ]);
  const unfillable = shapes.check().map((p) => (p.runtime && notAnswered.has(p.status) ? { ...p, runtime: false } : p));
  reportUnfillable(unfillable, errorMapper !== undefined, logger);
  // why the cast: the hook is generic per operation id; dispatching by id at run time calls it with the one common
  // signature (the generated Handlers type checks each handler, the hook's type checks what it returns)
  const around = options.around as unknown as
    | ((call: HandlerCall<unknown, HandlerResult, TPrincipal>) => Promise<HandlerResult | RenderedResponse>)
    | undefined; // see above

  // Responses serialised by their schemas, compiled on first use (D142 compiled response serializers in production); not under response validation, which checks
  // (and sends) what the handler returned.
  const serializers = validateResponses ? undefined : new ResponseSerializers(spec.apiDocument, logger);

  // 5. Per operation, the steps it needs (guard -> body parsers -> validation -> typed handler), put together once;
  // one middleware finds the operation of a request and runs them (dispatch.ts, D141).
  const invokeFor = (operation: OperationRoute): RequestHandler => {
    const handler = handlers[operation.operationId]!;
    const run = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      try {
        const request = handlerRequest(operation, req);
        const ctx: HandlerContext<TPrincipal> = { principal: res.locals.principal as TPrincipal, operation, req, res, logger };
        const result =
          around === undefined
            ? await handler(request, ctx)
            : await around({
                operationId: operation.operationId,
                operation,
                request,
                ctx,
                next: () => handler(request, ctx),
                render: (outcome) =>
                  'result' in outcome
                    ? renderResult(req.app, serializers, operation, outcome.result)
                    : renderError(req.app, req, classifyError(outcome.error), operation, shapes, errorMapper),
              });
        if (result instanceof RenderedResponse) sendRendered(req, res, result);
        else sendResult(serializers, operation, req, res, result, validateResponses);
      } catch (error) {
        next(error);
      }
    };
    return run;
  };

  for (const [operationId, reason] of skipped) logger.warn({ operationId }, `${operationId} is not served (501): ${reason}`);
  // D198: a request part whose schema Ajv could not compile is served without validation: said once, naming the operation.
  for (const operation of spec.operations) {
    const parts = spec.requestValidators[operation.operationId]?.notValidated;
    if (parts !== undefined)
      logger.warn({ operationId: operation.operationId }, `${operation.operationId}: request not validated: ${parts}`);
  }
  if (notImplemented.size > 0)
    logger.warn(
      { operations: [...notImplemented] },
      `notImplemented: 'respond': ${notImplemented.size} operation(s) without a handler answer 501: ${[...notImplemented].join(', ')}`,
    );
  // An operation without a handler yet: authenticated and validated like the others, then 501 (D218 missing handlers refused or answered 501).
  const notImplementedStep =
    (operation: OperationRoute): RequestHandler =>
    (_req, _res, next) =>
      next(new HttpError(501, RUNTIME_ERROR_CODES.notImplemented, `${operation.operationId} is not implemented yet`));
  const routes = spec.operations.map((operation) => {
    const guard = guardFor(operation);
    if (skipped.has(operation.operationId)) {
      const notServed: RequestHandler = (_req, _res, next) =>
        next(
          new HttpError(
            501,
            RUNTIME_ERROR_CODES.notImplemented,
            `${operation.operationId} is not served by this scaffold: ${skipped.get(operation.operationId)!}`,
          ),
        );
      return { operation, steps: guard === undefined ? [notServed] : [guard, notServed] };
    }
    const requestValidation = createRequestValidator(operation, validators[operation.operationId]!, {
      allow: allowOf.get(operation.path)!,
      uploadLimits,
      multipartLimitBytes,
    });
    const responseValidation = validateResponses
      ? [
          createResponseValidator(spec.apiDocument, operation, (reason) =>
            logger.warn({ operationId: operation.operationId }, `${operation.operationId}: responses not validated: ${reason}`),
          ),
        ]
      : [];
    // An operation that declares no request body does not read one: whatever is sent (oversize, compressed, not
    // JSON) is drained unread, so no status the operation does not declare (413, 415) can come from it.
    const bodyParsersFor = operation.requestMediaTypes.length > 0 ? parsers : [];
    return {
      operation,
      steps: [
        ...(guard === undefined ? [] : [guard]),
        ...bodyParsersFor,
        ...requestValidation,
        ...(notImplemented.has(operation.operationId) ? [notImplementedStep(operation)] : [...responseValidation, invokeFor(operation)]),
      ],
    };
  });
  dispatch = createDispatcher(
    routes.map((route) => ({
      ...route,
      parameters: validators[route.operation.operationId]?.parameters,
      pathEnums: pathParameterEnums(spec.apiDocument, route.operation),
    })),
    {
      malformed: rejectMalformedPathEncoding(spec.operations.map((op) => sentPath(op.path))),
      unmatched: parsers,
      warn: (operationId, message) => logger.warn({ operationId }, message),
    },
  );
  if (!oneLayer) app.use(dispatch);

  // 6. Unknown routes, then the one error mapper.
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, RUNTIME_ERROR_CODES.notFound, 'No such route')));
  app.use(errorHandler(logger, shapes, errorMapper, options.requestLogFields));
  return app;
}
