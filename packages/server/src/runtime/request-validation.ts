/**
 * Request validation with the precompiled validators of `request-validators.gen.ts` (no express-openapi-validator on
 * the request path). Each step mirrors what express-openapi-validator 5.6 does for the same document, in the same order,
 * and throws errors of the same shape (`{ status, errors: [{ path, message }] }`), so `mapError` answers with the same
 * envelope and `details` keys:
 *
 * 1. method check (405 + Allow, e.g. HEAD on a GET route);
 * 2. multipart/form-data: multer with the configured limits (413 / 400), file parts counted into the body as `''`;
 * 3. body media type: the declared ones, else 415;
 * 4. parameters: bracket-notation query keys, reserved characters in query values, array/object styles;
 * 5. unknown or empty query parameters (400, one at a time);
 * 6. Ajv: query, headers, path params (coerced, defaults applied, in place), then the body (not coerced).
 */
import { createRequire } from 'node:module';
import { parse as parseLegacyUrl } from 'node:url';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { UploadLimits } from './app.js';
import type { OperationRoute } from './types.js';

/** One Ajv error as the standalone code reports it. */
export interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** An Ajv standalone validate function. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

/** How one parameter is reshaped before validation (generated; see generators/src/emit/request-validators.ts). */
export interface ParameterRule {
  readonly name: string;
  readonly in: 'query' | 'header' | 'path' | 'cookie';
  readonly kind: 'none' | 'json' | 'wrap' | 'split' | 'badStyle' | 'formExplode' | 'deepObject' | 'formObject';
  readonly delimiter?: string;
  readonly style?: string;
  readonly properties?: readonly string[];
  readonly arrayProperties?: readonly string[];
  readonly deepDefault?: unknown;
  /** Query values must not hold unencoded reserved characters (`comma`: commas allowed, for non-exploded values). */
  readonly reserved?: 'whole' | 'comma';
}

export interface BodyMediaRule {
  readonly mediaType: string;
  /** Validates `{ body }`: errors are reported under `/body`. */
  readonly validate: CompiledValidator;
  /** multipart fields declared as array/object: JSON-parsed when sent as a string. */
  readonly jsonFields?: readonly string[];
}

/** Everything the runtime needs for one operation (generated). */
export interface OperationRequestValidators {
  readonly query?: CompiledValidator;
  readonly headers?: CompiledValidator;
  readonly params?: CompiledValidator;
  /** Every declared parameter, in the validator's order (operation level, then path level). */
  readonly parameters: readonly ParameterRule[];
  readonly queryNames: readonly string[];
  readonly allowEmptyValue?: readonly string[];
  readonly allowUnknownQuery?: boolean;
  readonly securityQueryParams?: readonly string[];
  /** Absent when the operation declares no request body. */
  readonly body?: { readonly required: boolean | undefined; readonly content: readonly BodyMediaRule[] };
  readonly multipart?: boolean;
}

/** express-openapi-validator's error shape (what `mapError` maps: `status`, `errors[].path/message`, `headers`). */
export class RequestRejection extends Error {
  override readonly name = 'RequestRejection';
  constructor(
    readonly status: number,
    message: string,
    readonly errors: { path: string; message: string }[] = [],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

function badRequest(path: string, message: string): RequestRejection {
  return new RequestRejection(400, message, [{ path, message }]);
}

// ---------------------------------------------------------------------------------------------------------------
// Content types (express-openapi-validator's ContentType)

interface ParsedContentType {
  mediaType: string | null;
  parameters: Record<string, string>;
}

function parseContentType(header: string | undefined): ParsedContentType {
  const out: ParsedContentType = { mediaType: null, parameters: {} };
  if (!header) return out;
  for (const match of header.matchAll(/;\s*([^=]+)=([^;]+)/g)) {
    const key = match[1]!.toLowerCase();
    out.parameters[key] = key === 'charset' ? match[2]!.toLowerCase() : match[2]!;
  }
  out.mediaType = header.split(';')[0]!.toLowerCase().trim();
  return out;
}

function normalizeContentType(ct: ParsedContentType, exclude: readonly string[] = ['boundary']): string | undefined {
  if (!ct.mediaType) return undefined;
  let parameters = '';
  for (const key of Object.keys(ct.parameters).sort()) if (!exclude.includes(key)) parameters += `; ${key}=${ct.parameters[key]!}`;
  return ct.mediaType + parameters;
}

/** The declared media type a request's Content-Type selects (exact, then equivalent, then a wildcard), or undefined. */
export function selectMediaType(declared: readonly string[], header: string | undefined): string | undefined {
  const ct = parseContentType(header);
  const normalized = normalizeContentType(ct);
  const declaredNormalized = declared.map((d) => normalizeContentType(parseContentType(d)));
  for (let i = 0; i < declared.length; i++) if (normalized == declaredNormalized[i]) return declared[i];
  if (ct.mediaType) {
    const equivalents = [ct.mediaType];
    if (!ct.parameters['charset']) equivalents.push(normalizeContentType(parseContentType(`${normalizeContentType(ct, ['charset'])!}; charset=utf-8`))!);
    for (let i = 0; i < declared.length; i++) if (equivalents.includes(declaredNormalized[i]!)) return declared[i];
  }
  for (const candidate of [...declared].sort().reverse()) {
    if (candidate === '*/*') return candidate;
    if (!/^[a-z]+\/\*$/.test(candidate)) continue;
    const [type] = candidate.split('/', 1);
    if (new RegExp(`^${type!}/.+$`).test(String(normalized))) return candidate;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters (express-openapi-validator's RequestParameterMutator)

type Bag = Record<string, unknown>;

const RESERVED_CHARS = /[:/?#[\]@!$&'()*+,;=]/;

function rawQueryPairs(originalUrl: string): Map<string, (string | undefined)[]> {
  const out = new Map<string, (string | undefined)[]>();
  const qs = parseLegacyUrl(originalUrl).query;
  if (!qs) return out;
  for (const pair of qs.replace('?', '').split('&')) {
    const [k, v] = pair.split('=') as [string, string | undefined];
    let list = out.get(k);
    if (list === undefined) out.set(k, (list = []));
    list.push(v);
  }
  return out;
}

function checkReserved(name: string, raw: Map<string, (string | undefined)[]>, allowComma: boolean): void {
  const values = raw.get(name);
  if (!values) return;
  for (const v of values) {
    // (a value-less key with commas allowed fails here exactly as in the validator: `undefined.split`)
    const parts = allowComma ? (v as string).split(',') : [v];
    for (const part of parts) {
      if (part?.match(RESERVED_CHARS)) {
        throw badRequest(`/query/${name}`, `Parameter '${name}' must be url encoded. Its value may not contain reserved characters.`);
      }
    }
  }
}

/** `a[b]=1` -> `a: { b: '1' }`, `a[]=1` / `a[0]=1` -> `a: ['1']` (qs-style, for keys the spec does not spell with brackets). */
function bracketValue(key: string, value: unknown): unknown {
  const parts = [...key.slice(key.indexOf('[')).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!);
  let out: unknown = value;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part === '' || /^\d+$/.test(part)) out = [out];
    else out = { [part]: out };
  }
  return out;
}

function handleBracketNotation(query: Bag, literal: ReadonlySet<string>): void {
  for (const key of Object.keys(query)) {
    if (!key.includes('[') || literal.has(key)) continue;
    const base = key.split('[')[0]!;
    const parsed = bracketValue(key, query[key]);
    const existing = query[base];
    if (existing !== null && typeof existing === 'object' && !Array.isArray(existing) && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      query[base] = { ...(existing as Bag), ...(parsed as Bag) };
    } else {
      query[base] = parsed;
    }
    delete query[key];
  }
}

function parseJsonField(bag: Bag | undefined, name: string): void {
  if (bag?.[name]) {
    try {
      bag[name] = JSON.parse(bag[name] as string);
    } catch {
      // kept as sent
    }
  }
}

function applyParameterRule(rule: ParameterRule, query: Bag, headers: Bag, params: Bag): void {
  const bag = rule.in === 'query' ? query : rule.in === 'header' ? headers : rule.in === 'path' ? params : undefined;
  const name = rule.name;
  switch (rule.kind) {
    case 'none':
      return;
    case 'json':
      parseJsonField(bag, name);
      return;
    case 'wrap':
      if (bag?.[name] && !Array.isArray(bag[name])) bag[name] = [bag[name]];
      return;
    case 'badStyle':
      throw badRequest(`.query.${name}`, `Parameter 'style' has incorrect value '${rule.style ?? 'undefined'}' for [${name}]`);
    case 'split':
      if (bag?.[name] && !Array.isArray(bag[name])) bag[name] = (bag[name] as string).split(rule.delimiter!);
      return;
    case 'formExplode': {
      parseJsonField(query, name);
      const properties = rule.properties ?? [];
      if (!properties.some((p) => Object.prototype.hasOwnProperty.call(query, p))) return;
      const object: Bag = {};
      query[name] = object;
      for (const property of properties) {
        if (query[property]) {
          const value = query[property];
          object[property] = rule.arrayProperties?.includes(property) && !Array.isArray(value) ? [value] : value;
          delete query[property];
        }
      }
      return;
    }
    case 'deepObject':
      if (!query[name]) query[name] = rule.deepDefault;
      parseJsonField(query, name);
      return;
    case 'formObject': {
      const value = query[name];
      if (typeof value === 'string' && value.split('{').length <= 1) {
        const items = value.split(',');
        if (items.length % 2 === 0) {
          const object: Bag = {};
          for (let i = 0; i < items.length - 1; i += 2) object[items[i]!] = items[i + 1];
          query[name] = object;
          return;
        }
      }
      parseJsonField(query, name);
      return;
    }
  }
}

function checkQueryNames(query: Bag, v: OperationRequestValidators, known: ReadonlySet<string>): void {
  if (v.allowUnknownQuery) return;
  for (const q of Object.keys(query)) {
    if (!known.has(q)) throw badRequest(`/query/${q}`, `Unknown query parameter '${q}'`);
    if (!v.allowEmptyValue?.includes(q) && query[q] === '') throw badRequest(`/query/${q}`, `Empty value found for query parameter '${q}'`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors (express-openapi-validator's augmentAjvErrors + ajvErrorsToValidatorError)

function collectErrors(out: AjvError[], validate: CompiledValidator, prefix: string): void {
  for (const e of validate.errors ?? []) out.push(prefix === '' ? e : { ...e, instancePath: prefix + e.instancePath });
}

function toRejection(errors: AjvError[]): RequestRejection {
  const mapped = errors.map((e) => {
    let message = e.message ?? '';
    if (e.keyword === 'enum' && Array.isArray(e.params['allowedValues'])) message = `${message}: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
    const missing = e.params['missingProperty'];
    const additional = e.params['additionalProperty'];
    const unevaluated = e.params['unevaluatedProperty'];
    const path = missing ? `${e.instancePath}/${String(missing)}` : additional ? `${e.instancePath}/${String(additional)}` : unevaluated ? `${e.instancePath}/${String(unevaluated)}` : e.instancePath;
    return { path, message };
  });
  return new RequestRejection(400, 'Request validation failed', mapped);
}

// ---------------------------------------------------------------------------------------------------------------
// Multipart (multer, as express-openapi-validator's multipart middleware runs it)

interface MulterInstance {
  any(): RequestHandler;
}
type MulterFactory = ((options: { limits: Required<UploadLimits> }) => MulterInstance) & { MulterError: new (...args: never[]) => Error & { code: string } };

let multerFactory: MulterFactory | undefined;

/** multer, resolved from express-openapi-validator's own dependency (the same instance the library uses). */
function loadMulter(): MulterFactory {
  if (multerFactory === undefined) {
    const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
    multerFactory = fromValidator('multer') as MulterFactory;
  }
  return multerFactory;
}

function multerRejection(req: Request, err: unknown, MulterError: MulterFactory['MulterError']): unknown {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof MulterError) {
    const code = err.code;
    const status = /LIMIT_(FILE|PART)_(SIZE|COUNT)/.test(code) ? 413 : /LIMIT_UNEXPECTED_FILE/.test(code) ? 500 : 400;
    return new RequestRejection(status, message, [{ path: req.path, message }]);
  }
  if (/Multipart: Boundary not found/i.test(message)) return badRequest(req.path, 'multipart file(s) required');
  return new RequestRejection(500, message, [{ path: req.path, message }]);
}

// ---------------------------------------------------------------------------------------------------------------

export interface RequestValidationOptions {
  /** The operation's path answers these methods (for 405 on HEAD and other methods Express routes here). */
  allow: string;
  uploadLimits: Required<UploadLimits>;
}

/**
 * The route-level middleware for one operation. Throws (via `next`) RequestRejection errors shaped like
 * express-openapi-validator's, so the envelope and `details` keys are the same.
 */
export function createRequestValidator(operation: OperationRoute, v: OperationRequestValidators, options: RequestValidationOptions): RequestHandler[] {
  const method = operation.method.toUpperCase();
  const knownQuery = new Set([...v.queryNames, ...(v.securityQueryParams ?? [])]);
  const literalBracketQuery = new Set(v.parameters.filter((p) => p.in === 'query' && p.name.includes('[')).map((p) => p.name));
  // `req.query` must be pinned (and walked) when the query is validated or reshaped, or when there is a query string
  // (unknown / empty parameters); the parameter loop also runs for header and path reshaping.
  const needsQuery = v.query !== undefined || v.parameters.some((p) => p.in === 'query' && p.kind !== 'none');
  const otherRules = v.parameters.some((p) => p.in !== 'query' && p.kind !== 'none');
  const declaredMedia = v.body?.content.map((c) => c.mediaType) ?? [];
  const methodNotAllowed = (req: Request): RequestRejection =>
    new RequestRejection(405, `${req.method} method not allowed`, [{ path: req.path, message: `${req.method} method not allowed` }], { Allow: options.allow });

  const validate = (req: Request, _res: Response, next: NextFunction): void => {
    try {
      // 1. method (multipart operations check it before parsing, in `multipart`)
      if (req.method !== method) throw methodNotAllowed(req);
      // 3. media type (before anything about the parameters, as the validator does)
      let media: BodyMediaRule | undefined;
      if (v.body !== undefined) {
        const header = req.headers['content-type'];
        const selected = selectMediaType(declaredMedia, header);
        if (selected === undefined) {
          const ct = normalizeContentType(parseContentType(header));
          if (!(ct === undefined && v.body.required === false)) {
            throw new RequestRejection(415, `unsupported media type ${String(ct)}`, [{ path: operation.expressPath, message: `unsupported media type ${String(ct)}` }]);
          }
        } else {
          media = v.body.content.find((c) => c.mediaType === selected);
        }
      }

      // 4. parameters. Express 5 re-parses `req.query` on every read: pin one object, as the validator does.
      const search = req.originalUrl.includes('?');
      let query: Bag = {};
      if (needsQuery || search) {
        query = req.query as Bag;
        Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
        handleBracketNotation(query, literalBracketQuery);
      }
      if (needsQuery || search || otherRules) {
        let raw: Map<string, (string | undefined)[]> | undefined;
        for (const rule of v.parameters) {
          if (rule.reserved !== undefined && search) checkReserved(rule.name, (raw ??= rawQueryPairs(req.originalUrl)), rule.reserved === 'comma');
          if (rule.kind !== 'none') applyParameterRule(rule, query, req.headers as Bag, req.params as Bag);
        }
        // 5. unknown / empty query parameters
        checkQueryNames(query, v, knownQuery);
      }
      if (media?.jsonFields !== undefined && req.body !== null && typeof req.body === 'object') {
        for (const field of media.jsonFields) {
          const value = (req.body as Bag)[field];
          if (value !== undefined) {
            try {
              (req.body as Bag)[field] = JSON.parse(value as string);
            } catch {
              // kept as sent
            }
          }
        }
      }

      // 6. Ajv: parameters (coerced in place, defaults applied), then the body
      const errors: AjvError[] = [];
      if (v.query !== undefined && !v.query(query)) collectErrors(errors, v.query, '/query');
      if (v.headers !== undefined && !v.headers(req.headers)) collectErrors(errors, v.headers, '/headers');
      if (v.params !== undefined && !v.params(req.params)) collectErrors(errors, v.params, '/params');
      if (media !== undefined && !media.validate({ body: req.body })) collectErrors(errors, media.validate, '');
      if (errors.length > 0) throw toRejection(errors);
      next();
    } catch (error) {
      next(error);
    }
  };

  if (!v.multipart) return [validate];

  // 2. multipart/form-data: multer with the limits, then the file parts counted into the body for validation
  let upload: RequestHandler | undefined;
  const multipart: RequestHandler = (req, res, next) => {
    if (req.method !== method) {
      next(methodNotAllowed(req));
      return;
    }
    if (!req.headers['content-type']?.includes('multipart/form-data')) {
      next();
      return;
    }
    const multer = loadMulter();
    upload ??= multer({ limits: options.uploadLimits }).any();
    upload(req, res, (err?: unknown) => {
      if (err) {
        next(multerRejection(req, err, multer.MulterError));
        return;
      }
      const files = (req as Request & { files?: { fieldname: string }[] }).files;
      if (Array.isArray(files)) {
        const counts = new Map<string, number>();
        for (const f of files) counts.set(f.fieldname, (counts.get(f.fieldname) ?? 0) + 1);
        for (const [field, count] of counts) (req.body as Bag)[field] = count > 1 ? new Array<string>(count).fill('') : '';
      }
      next();
    });
  };
  return [multipart, validate];
}

/** express-openapi-validator's route order: static segments before parameters, longer before shorter prefixes. */
export function compareRoutes(a: string, b: string): number {
  const e1 = a.replace(/\/:/g, '/~');
  const e2 = b.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
}
