import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { closeConnectionOnEarlyAnswer, limitInBytes, readingAtMost, rejectDeclaredOversize } from './body-limits.js';
import { HttpError, HttpErrorWithPage, mapError, RUNTIME_ERROR_CODES, VALIDATION_MESSAGE } from './errors.js';
import { compareRoutes, createRequestValidator, methodNotAllowed, type OperationRequestValidators } from './request-validation.js';
import { createResponseValidator } from './response-validation.js';
import type { ApiDocument, HandlerContext, Logger, OperationRoute, SecurityRequirement, SecuritySchemeInfo, UploadedFile } from './types.js';

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

export interface CreateAppOptions<THandlers, TPrincipal = unknown> {
  handlers: THandlers;
  /**
   * Called for every operation with security requirements, before validation. Return the principal (put on
   * `ctx.principal`) or throw (an `HttpError`, else 401 ERR_AUTH_000). Without it, requests are not authenticated.
   */
  authenticate?: (input: AuthenticateInput) => TPrincipal | Promise<TPrincipal>;
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
  logger?: Logger;
  /** Runs first on the new app (mount health checks, static files, request logging, trust proxy...). */
  before?: (app: Express) => void;
}

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

const JSON_TYPES = ['application/json', 'application/*+json'];

function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(.+\+)?json/.test(mediaType);
}

/** Media types to send for a status: the exact key, else `NXX`, else `default`. */
function declaredMediaTypes(operation: OperationRoute, status: number): readonly string[] {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default ?? [];
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
  /**
   * Body text already serialised, sent byte for byte instead of `body` (e.g. an idempotent replay of a stored
   * response). Not part of the generated handler types: only wrappers around handlers produce it.
   */
  rawBody?: string;
}

function sendResult(operation: OperationRoute, res: Response, result: HandlerResult): void {
  if (typeof result !== 'object' || result === null || !Number.isInteger(result.status)) {
    throw new Error(`Handler ${operation.operationId} returned no { status }`);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
  }
  res.status(result.status);
  if (result.rawBody !== undefined) {
    res.type(result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json').send(result.rawBody);
    return;
  }
  if (result.body === undefined) {
    res.end();
    return;
  }
  const contentType = result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json';
  if (isJsonMediaType(contentType)) {
    res.type(contentType).json(result.body);
  } else {
    res.type(contentType).send(result.body);
  }
}

/**
 * A query string is `application/x-www-form-urlencoded`, where `+` is a space (what `URLSearchParams` writes, and
 * what our own `next` links contain). A raw `+` would otherwise be an unencoded reserved character, so spell it `%20`
 * before anything reads the query (docs/request-validation.md, section 4).
 */
export const formEncodedQuerySpaces: RequestHandler = (req, _res, next) => {
  const spaced = (url: string): string => {
    const start = url.indexOf('?');
    return start === -1 ? url : url.slice(0, start) + url.slice(start).replaceAll('+', '%20');
  };
  // Validation reads `originalUrl`, Express routing reads `url`.
  req.url = spaced(req.url);
  req.originalUrl = spaced(req.originalUrl);
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
    const template = split.find((t) => t.length === raw.length && t.every((seg, i) => seg === raw[i] || (/^\{[^}]+\}$/.test(seg) && (i === bad || decodes(raw[i]!)))));
    const parameter = template?.[bad]?.match(/^\{([^}]+)\}$/)?.[1];
    next(new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { [parameter ?? 'path']: 'contains malformed percent-encoding (each % must start a UTF-8 escape such as %2F)' }));
  };
}

/**
 * The JSON, urlencoded and text body parsers every operation route runs (multipart is parsed per operation): 413 from
 * the Content-Length before reading, and no byte read past the limit of a chunked body (D96).
 */
export function bodyParsers(limit: string | number, multipartLimitBytes?: number): RequestHandler[] {
  const limitBytes = limitInBytes(limit);
  return [
    rejectDeclaredOversize(limitBytes, multipartLimitBytes),
    readingAtMost(express.json({ limit, type: JSON_TYPES }), limitBytes),
    readingAtMost(express.urlencoded({ limit, extended: false }), limitBytes),
    readingAtMost(express.text({ limit, type: 'text/*' }), limitBytes),
  ];
}

/**
 * `Allow` per path: the methods the route table declares on it, in its order (GET, PUT, POST, DELETE, OPTIONS,
 * HEAD, PATCH, TRACE), and the paths ordered for matching (static segments first).
 */
export function allowByPath(operations: readonly OperationRoute[]): { path: string; expressPath: string; allow: string }[] {
  const byPath = new Map<string, { path: string; expressPath: string; methods: string[] }>();
  for (const op of operations) {
    let entry = byPath.get(op.path);
    if (entry === undefined) byPath.set(op.path, (entry = { path: op.path, expressPath: op.expressPath, methods: [] }));
    entry.methods.push(op.method.toUpperCase());
  }
  return [...byPath.values()].sort((a, b) => compareRoutes(a.expressPath, b.expressPath)).map((e) => ({ path: e.path, expressPath: e.expressPath, allow: e.methods.join(', ') }));
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
function assertNoNulCharacters(req: Request): void {
  const where = findNulCharacter(req.body) ?? findNulCharacter(req.query);
  if (where !== undefined) {
    throw new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { [where || 'body']: 'must not contain NUL (\\u0000) characters' });
  }
}

/** The typed request a handler receives (after validation): params, query, lower-cased headers, body with files. */
export function handlerRequest(operation: OperationRoute, req: Request): { params: Record<string, unknown>; query: Record<string, unknown>; headers: Request['headers']; body: unknown } {
  assertNoNulCharacters(req);
  const files = collectFiles(operation, req);
  const body = Object.keys(files).length > 0 ? { ...(req.body as object), ...files } : req.body;
  return { params: { ...req.params }, query: { ...(req.query as object) }, headers: req.headers, body };
}

/** The one error mapper: the envelope, `Allow` on 405, internals only to the log. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const mapped = mapError(err);
    if (mapped.internal) {
      logger.error({ err, method: req.method, path: req.path, operationId: (res.locals.operation as OperationRoute | undefined)?.operationId }, 'request failed');
    }
    if (err instanceof HttpErrorWithPage && req.accepts(['application/json', err.page.contentType]) === err.page.contentType) {
      res.status(mapped.status).set(mapped.headers).type(err.page.contentType).send(err.page.text);
      return;
    }
    res.status(mapped.status).set(mapped.headers).json(mapped.body);
  };
}

/**
 * Builds the Express app for a generated spec: one route per operation running auth + rate limit -> body parsers ->
 * precompiled request validation (multipart included) -> optional response validation -> the typed handler; then
 * 405/404 for other requests and one error mapper.
 */
export function createApiApp<THandlers extends object, TPrincipal = unknown>(spec: ApiSpec, options: CreateAppOptions<THandlers, TPrincipal>): Express {
  const logger = options.logger ?? silentLogger;
  const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
  const limits = options.uploadLimits ?? {};
  // why the cast: THandlers maps each operation id to its own typed handler; dispatching by id at run time needs one
  // common signature, which TypeScript cannot derive from the per-key types (the generated Handlers type checks them)
  const handlers = options.handlers as unknown as Record<string, ((req: unknown, ctx: HandlerContext<TPrincipal>) => Promise<HandlerResult>) | undefined>; // see above
  const missing = spec.operations.filter((op) => typeof handlers[op.operationId] !== 'function').map((op) => op.operationId);
  if (missing.length > 0) throw new Error(`createApp: missing handler(s) for ${missing.join(', ')}`);

  const app = express();
  // Paths are matched exactly as the spec writes them (Express's default ignores a trailing slash and case, so
  // `/pg/orders/{id}/` would reach the handler of `/pg/orders/{id}`): the other spelling is 404 (decision B9). Set
  // before anything touches `app.router`, which reads these settings once when it is created.
  app.enable('strict routing');
  app.enable('case sensitive routing');
  app.disable('x-powered-by');
  // First, so that every answer (the app's own routes included) sent while a body is still arriving closes the connection (D96).
  app.use(closeConnectionOnEarlyAnswer);
  app.use(formEncodedQuerySpaces);
  options.before?.(app);
  app.use(rejectMalformedPathEncoding(spec.operations.map((op) => op.path)));

  // 1. Authentication and rate limiting, before any body is read or validated (first in each operation's route).
  const guardFor = (operation: OperationRoute): RequestHandler => {
    if ((operation.security.length === 0 || options.authenticate === undefined) && options.rateLimit === undefined) {
      // nothing to await: no promise hop
      return (_req, res, next) => {
        res.locals.principal = undefined;
        res.locals.operation = operation;
        next();
      };
    }
    return guardAsync(operation);
  };
  const guardAsync = (operation: OperationRoute): RequestHandler => async (req, res, next) => {
    try {
      let principal = undefined as TPrincipal;
      if (operation.security.length > 0 && options.authenticate !== undefined) {
        try {
          principal = await options.authenticate({ req, operation, requirements: operation.security, schemes: spec.securitySchemes });
        } catch (error) {
          throw error instanceof HttpError ? error : new HttpError(401, RUNTIME_ERROR_CODES.auth, 'Missing credentials');
        }
      }
      res.locals.principal = principal;
      res.locals.operation = operation;
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
  // headers and boundaries. A Content-Length above it is 413 before reading (D96).
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

  // 4. One route per operation: guard -> body parsers -> validation -> typed handler, in ONE router pass.
  const invokeFor = (operation: OperationRoute): RequestHandler => {
    const handler = handlers[operation.operationId]!;
    return async (req: Request, res: Response, next: NextFunction) => {
      try {
        const request = handlerRequest(operation, req);
        const ctx: HandlerContext<TPrincipal> = { principal: res.locals.principal as TPrincipal, operation, req, res, logger };
        const result = await handler(request, ctx);
        sendResult(operation, res, result);
      } catch (error) {
        next(error);
      }
    };
  };

  for (const operation of spec.operations) {
    const requestValidation = createRequestValidator(operation, validators[operation.operationId]!, { allow: allowOf.get(operation.path)!, uploadLimits });
    const responseValidation = validateResponses ? [createResponseValidator(spec.apiDocument, operation)] : [];
    // An operation that declares no request body does not read one: whatever is sent (oversize, compressed, not
    // JSON) is drained unread, so no status the operation does not declare (413, 415) can come from it.
    const bodyParsersFor = operation.requestMediaTypes.length > 0 ? parsers : [];
    app[operation.method](operation.expressPath, guardFor(operation), ...bodyParsersFor, ...requestValidation, ...responseValidation, invokeFor(operation));
  }
  // Requests no operation route took: after the same parsers, a known path answers 405 with `Allow`, anything else
  // falls through to 404.
  const knownPaths = express.Router({ strict: true, caseSensitive: true });
  for (const { expressPath, allow } of paths) knownPaths.all(expressPath, (req: Request, _res: Response, next: NextFunction) => next(methodNotAllowed(req, allow)));
  app.use(...parsers, knownPaths);

  // 5. Unknown routes, then the one error mapper.
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, RUNTIME_ERROR_CODES.notFound, 'No such route')));
  app.use(errorHandler(logger));
  return app;
}
