import { createRequire } from 'node:module';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type * as OpenApiValidatorModule from 'express-openapi-validator';
import { HttpError, mapError, RUNTIME_ERROR_CODES } from './errors.js';
import { compareRoutes, createRequestValidator, RequestRejection, type OperationRequestValidators } from './request-validation.js';
import type { ApiDocument, HandlerContext, Logger, OperationRoute, SecurityRequirement, SecuritySchemeInfo, UploadedFile } from './types.js';

/** What `createApiApp` needs from the generated code. */
export interface ApiSpec {
  apiDocument: ApiDocument;
  operations: readonly OperationRoute[];
  securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>;
  /** Precompiled request validators (request-validators.gen.ts); required by `requestValidation: 'precompiled'`. */
  requestValidators?: Readonly<Record<string, OperationRequestValidators>>;
}

/**
 * How requests are validated:
 * - `'precompiled'`: the generated Ajv standalone validators, called from each operation's route (nothing compiled
 *   at boot, no per-request route lookup); express-openapi-validator is only loaded when responses are validated.
 * - `'express-openapi-validator'`: the library validates requests (and responses) from the embedded document.
 * Both answer with the same statuses, envelopes and `details` keys.
 */
export type RequestValidationMode = 'precompiled' | 'express-openapi-validator';

/** Default of `CreateAppOptions.requestValidation`. */
export const DEFAULT_REQUEST_VALIDATION: RequestValidationMode = 'precompiled';

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
  /** Validate handler responses against the spec (default: on unless NODE_ENV === 'production'). */
  validateResponses?: boolean;
  /**
   * Request validation engine (default: the PAYGATE_REQUEST_VALIDATION environment variable when it names one, else
   * DEFAULT_REQUEST_VALIDATION, i.e. 'precompiled').
   */
  requestValidation?: RequestValidationMode;
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
 * what our own `next` links contain). express-openapi-validator rejects a raw `+` as an unencoded reserved
 * character, so spell it `%20` before anything reads the query.
 */
const formEncodedQuerySpaces: RequestHandler = (req, _res, next) => {
  const spaced = (url: string): string => {
    const start = url.indexOf('?');
    return start === -1 ? url : url.slice(0, start) + url.slice(start).replaceAll('+', '%20');
  };
  // The validator reads `originalUrl`, Express routing reads `url`.
  req.url = spaced(req.url);
  req.originalUrl = spaced(req.originalUrl);
  next();
};

interface PathToRegexpModule {
  pathToRegexp: ((path: unknown, options?: object) => unknown) & { paygateMemoized?: true };
}

/** Upper bound of memoized (route, options) pairs: routes come from the spec, so this is never reached in practice. */
const PATH_REGEXP_CACHE_LIMIT = 10_000;

/**
 * express-openapi-validator 5.6 (`lookupRoute` in dist/middlewares/openapi.metadata.js) calls
 * `pathToRegexp(expressRoute, options)` for EVERY spec route on EVERY request: it re-parses each route template
 * per request. Memoize it on the exact `path-to-regexp` instance the validator resolves, keyed by (route, options):
 * same regexps, compiled once (+8..14% requests per CPU-second on a validated GET). The result is only used for
 * `regexp.exec` (no `g`/`y` flag, so no `lastIndex` state) and `keys`, which nobody mutates. Idempotent.
 */
export function memoizeValidatorPathToRegexp(): void {
  let ptr: PathToRegexpModule;
  try {
    const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
    ptr = requireFromValidator('path-to-regexp') as PathToRegexpModule;
  } catch {
    return; // layout changed: stay correct, just slower
  }
  const original = ptr.pathToRegexp;
  if (typeof original !== 'function' || original.paygateMemoized) return;
  const cache = new Map<string, unknown>();
  const memoized = (path: unknown, options: object = {}): unknown => {
    if (typeof path !== 'string') return original(path, options);
    const key = `${path}\u0000${JSON.stringify(options)}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      hit = original(path, options);
      if (cache.size < PATH_REGEXP_CACHE_LIMIT) cache.set(key, hit);
    }
    return hit;
  };
  memoized.paygateMemoized = true as const;
  ptr.pathToRegexp = memoized;
}

type OpenApiValidatorLib = typeof OpenApiValidatorModule;
let openApiValidatorLib: OpenApiValidatorLib | undefined;

/** express-openapi-validator, loaded on first use only (its module graph and spec loading are not free at boot). */
function loadOpenApiValidator(): OpenApiValidatorLib {
  openApiValidatorLib ??= createRequire(import.meta.url)('express-openapi-validator') as OpenApiValidatorLib;
  return openApiValidatorLib;
}

interface ValidatorRoute {
  openApiPath: string;
  expressRoute: string;
  allow: string;
}

/**
 * The spec's paths as express-openapi-validator orders them (its `sortRoutes` over one route per path and method, in
 * document order) with the `Allow` value it sends on 405 (the methods in that same order).
 */
export function validatorRouteTable(apiDocument: ApiDocument): ValidatorRoute[] {
  const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  const routes: { openApiPath: string; expressRoute: string; method: string }[] = [];
  for (const [path, item] of Object.entries(apiDocument.paths ?? {})) {
    if (item === null || typeof item !== 'object') continue;
    for (const method of Object.keys(item)) {
      if (method.startsWith('x-') || ['parameters', 'summary', 'description'].includes(method)) continue;
      routes.push({ openApiPath: path, expressRoute: path.replace(/\{([^}/]+)\}/g, ':$1'), method: method.toUpperCase() });
    }
  }
  routes.sort((a, b) => compareRoutes(a.expressRoute, b.expressRoute));
  const byRoute = new Map<string, { openApiPath: string; methods: string[] }>();
  for (const r of routes) {
    let entry = byRoute.get(r.expressRoute);
    if (entry === undefined) byRoute.set(r.expressRoute, (entry = { openApiPath: r.openApiPath, methods: [] }));
    if (!entry.methods.includes(r.method)) entry.methods.push(r.method);
  }
  return [...byRoute].map(([expressRoute, e]) => ({
    openApiPath: e.openApiPath,
    expressRoute,
    allow: e.methods.filter((m) => httpMethods.has(m.toLowerCase())).join(', '),
  }));
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
    throw new HttpError(400, RUNTIME_ERROR_CODES.validation, 'Request validation failed', { [where || 'body']: 'must not contain NUL (\\u0000) characters' });
  }
}

/**
 * Builds the Express app for a generated spec: one route per operation running auth + rate limit -> body parsers ->
 * express-openapi-validator (requests, optionally responses, multipart) -> the typed handler; then one error mapper.
 */
export function createApiApp<THandlers extends object, TPrincipal = unknown>(spec: ApiSpec, options: CreateAppOptions<THandlers, TPrincipal>): Express {
  const logger = options.logger ?? silentLogger;
  const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
  const limits = options.uploadLimits ?? {};
  const handlers = options.handlers as unknown as Record<string, ((req: unknown, ctx: HandlerContext<TPrincipal>) => Promise<HandlerResult>) | undefined>;
  const missing = spec.operations.filter((op) => typeof handlers[op.operationId] !== 'function').map((op) => op.operationId);
  if (missing.length > 0) throw new Error(`createApp: missing handler(s) for ${missing.join(', ')}`);

  const app = express();
  app.disable('x-powered-by');
  app.use(formEncodedQuerySpaces);
  options.before?.(app);

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

  // 2. Body parsers per media type (multipart is parsed by the validator's multer, with limits).
  const bodyLimit = options.bodyLimit ?? '1mb';
  const bodyParsers: RequestHandler[] = [
    express.json({ limit: bodyLimit, type: JSON_TYPES }),
    express.urlencoded({ limit: bodyLimit, extended: false }),
    express.text({ limit: bodyLimit, type: 'text/*' }),
  ];

  const uploadLimits = {
    fileSize: limits.fileSize ?? 5 * 1024 * 1024,
    files: limits.files ?? 1,
    fields: limits.fields ?? 20,
    fieldSize: limits.fieldSize ?? 64 * 1024,
  };
  const fromEnv = process.env.PAYGATE_REQUEST_VALIDATION;
  const mode = options.requestValidation ?? (fromEnv === 'precompiled' || fromEnv === 'express-openapi-validator' ? fromEnv : DEFAULT_REQUEST_VALIDATION);
  if (mode !== 'precompiled' && mode !== 'express-openapi-validator') throw new Error(`createApp: unknown requestValidation ${String(mode)}`);

  // 3. express-openapi-validator against the pre-bundled document (no file reads, no spec validation at boot): for
  // requests and responses, or, with precompiled request validation, for responses only (and then only when asked).
  // The library deep-clones `apiSpec` itself, so it is passed as is. Its route lookup is memoized.
  const libraryValidator = (validate: { requests: boolean; responses: boolean }): RequestHandler[] => {
    if (!validate.requests && !validate.responses) return [];
    memoizeValidatorPathToRegexp();
    const OpenApiValidator = loadOpenApiValidator();
    return OpenApiValidator.middleware({
      apiSpec: spec.apiDocument as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
      validateApiSpec: false,
      validateRequests: validate.requests ? { allErrors: true } : false,
      validateResponses: validate.responses ? { allErrors: true } : false,
      validateSecurity: false,
      $refParser: { mode: 'bundle' },
      // multipart is parsed by the precompiled path itself when the library does not validate requests
      fileUploader: validate.requests ? { limits: uploadLimits } : false,
    }) as unknown as RequestHandler[];
  };

  // 4. One route per operation: guard -> body parsers -> validation -> typed handler, in ONE router pass.
  const invokeFor = (operation: OperationRoute): RequestHandler => {
    const handler = handlers[operation.operationId]!;
    return async (req: Request, res: Response, next: NextFunction) => {
      try {
        assertNoNulCharacters(req);
        const files = collectFiles(operation, req);
        const body = Object.keys(files).length > 0 ? { ...(req.body as object), ...files } : req.body;
        const request = { params: { ...req.params }, query: { ...(req.query as object) }, headers: req.headers, body };
        const ctx: HandlerContext<TPrincipal> = { principal: res.locals.principal as TPrincipal, operation, req, res, logger };
        const result = await handler(request, ctx);
        sendResult(operation, res, result);
      } catch (error) {
        next(error);
      }
    };
  };

  if (mode === 'express-openapi-validator') {
    const validator = libraryValidator({ requests: true, responses: validateResponses });
    for (const operation of spec.operations) {
      app[operation.method](operation.expressPath, guardFor(operation), ...bodyParsers, ...validator, invokeFor(operation));
    }
    // Requests no operation route took (unknown path, or a known path with another method): the same parsers and the
    // validator, so a known path answers 405 (with Allow) as before, and anything else falls through to 404.
    app.use(...bodyParsers, ...validator);
  } else {
    const validators = spec.requestValidators;
    const missingValidators = spec.operations.filter((op) => validators?.[op.operationId] === undefined).map((op) => op.operationId);
    if (missingValidators.length > 0) {
      throw new Error(`createApp: requestValidation 'precompiled' needs request-validators.gen.ts (npm run generate); missing: ${missingValidators.join(', ')}`);
    }
    const table = validatorRouteTable(spec.apiDocument);
    const allowByPath = new Map(table.map((r) => [r.openApiPath, r.allow]));
    // Response validation hooks `res.json` only for requests that passed request validation (as with the library
    // validating both); its route lookup resets `req.params` to strings, so the coerced ones are put back after it.
    const library = libraryValidator({ requests: false, responses: validateResponses });
    const responseValidator: RequestHandler[] =
      library.length === 0
        ? []
        : [
            (req, res, next) => {
              res.locals.paygateParams = req.params;
              next();
            },
            ...library,
            (req, res, next) => {
              req.params = res.locals.paygateParams as Request['params'];
              next();
            },
          ];
    for (const operation of spec.operations) {
      const requestValidation = createRequestValidator(operation, validators![operation.operationId]!, {
        allow: allowByPath.get(operation.path) ?? operation.method.toUpperCase(),
        uploadLimits,
      });
      app[operation.method](operation.expressPath, guardFor(operation), ...bodyParsers, ...requestValidation, ...responseValidator, invokeFor(operation));
    }
    // Requests no operation route took: after the same parsers, a known path answers 405 with the validator's Allow
    // (paths tried in its order), anything else falls through to 404.
    const expressPathOf = new Map(spec.operations.map((op) => [op.path, op.expressPath]));
    const knownPaths = express.Router();
    for (const route of table) {
      const allow = route.allow;
      knownPaths.all(expressPathOf.get(route.openApiPath) ?? route.expressRoute, (req: Request, _res: Response, next: NextFunction) => {
        next(new RequestRejection(405, `${req.method} method not allowed`, [{ path: req.path, message: `${req.method} method not allowed` }], { Allow: allow }));
      });
    }
    app.use(...bodyParsers, knownPaths);
  }

  // 5. Unknown routes, then the one error mapper.
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, RUNTIME_ERROR_CODES.notFound, 'No such route')));
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const mapped = mapError(err);
    if (mapped.internal) {
      logger.error({ err, method: req.method, path: req.path, operationId: (res.locals.operation as OperationRoute | undefined)?.operationId }, 'request failed');
    }
    res.status(mapped.status).set(mapped.headers).json(mapped.body);
  });
  return app;
}
