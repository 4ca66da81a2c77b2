import type { ErrorEnvelope } from '@paygate/contract/types';
import type { FieldProblem, RuntimeError, RuntimeErrorKind } from './error-shapes.js';
import { unescapePointerToken } from '@paygate/contract/json';

/** Error codes the runtime itself produces (the envelope codes of the brief). */
export const RUNTIME_ERROR_CODES = {
  validation: 'ERR_VALIDATION_400',
  auth: 'ERR_AUTH_000',
  forbidden: 'ERR_AUTH_403',
  notFound: 'ERR_REQUEST_404',
  methodNotAllowed: 'ERR_REQUEST_405',
  tooLarge: 'ERR_REQUEST_413',
  unsupportedMediaType: 'ERR_REQUEST_415',
  rateLimited: 'ERR_RATE_429',
  internal: 'ERR_INTERNAL_500',
  notImplemented: 'ERR_REQUEST_501',
} as const;

/** The one message of every `ERR_VALIDATION_400` (the runtime's and the handlers'); `details` says what is wrong. */
export const VALIDATION_MESSAGE = 'Request validation failed';

/** The message of a 401 for a request that sent no credential of the operation's schemes (D219 invalid versus missing credentials). */
export const MISSING_CREDENTIALS = 'Missing credentials';
/** The message of a 401 for a request whose credentials were refused (D219 invalid versus missing credentials): no word on which scheme or part. */
export const INVALID_CREDENTIALS = 'Invalid credentials';

/** `{ success: false, error: { code, message, details? } }` (declared once, in @paygate/contract). */
export type { ErrorEnvelope };

/**
 * Throw from a handler, `authenticate` or `rateLimit` to answer with the error envelope.
 *
 * @example
 * throw new HttpError(404, 'ERR_ORDER_404', 'Order not found', { order_id: 'no such order' });
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string>,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/**
 * An error that a browser route answers with a page of its own when the client prefers HTML (`Accept`), and with
 * the error envelope otherwise. The operation must declare that media type for the status.
 *
 * @example
 * throw new HttpErrorWithPage(429, 'ERR_RATE_429', 'Too many requests', undefined, { 'Retry-After': '1' }, { contentType: 'text/html', text: '<!doctype html>...' });
 */
export class HttpErrorWithPage extends HttpError {
  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, string> | undefined,
    headers: Record<string, string> | undefined,
    readonly page: { contentType: string; text: string },
  ) {
    super(status, code, message, details, headers);
  }
}

/** Alias: the same class under the name used by API-level code. */
export { HttpError as ApiError };

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** True when the cause is a server fault that must be logged (the body never carries its internals). */
  internal: boolean;
}

const STATUS_CODES: Record<number, { code: string; message: string }> = {
  400: { code: RUNTIME_ERROR_CODES.validation, message: VALIDATION_MESSAGE },
  401: { code: RUNTIME_ERROR_CODES.auth, message: MISSING_CREDENTIALS },
  403: { code: RUNTIME_ERROR_CODES.forbidden, message: 'Credential not allowed for this operation' },
  404: { code: RUNTIME_ERROR_CODES.notFound, message: 'No such route' },
  405: { code: RUNTIME_ERROR_CODES.methodNotAllowed, message: 'Method not allowed on this path' },
  413: { code: RUNTIME_ERROR_CODES.tooLarge, message: 'Request body or file too large' },
  415: { code: RUNTIME_ERROR_CODES.unsupportedMediaType, message: 'Unsupported content type' },
  429: { code: RUNTIME_ERROR_CODES.rateLimited, message: 'Too many requests' },
};

const INTERNAL: ErrorEnvelope = { success: false, error: { code: RUNTIME_ERROR_CODES.internal, message: 'Internal server error' } };

/**
 * Validator path -> field name: `/body/buyer/email` -> `buyer.email`, `/body/items/0/name` -> `items[0].name`,
 * `/query/page_size` -> `page_size`, `/headers/x-merchant-id` -> `x-merchant-id`, `/params/order_id` -> `order_id`,
 * `/body` (the whole body) -> `body`.
 */
export function fieldName(path: string): string {
  const segments = path
    .replace(/^[./]/, '')
    .split(/[./]/)
    .filter((s) => s.length > 0)
    .map((s) => unescapePointerToken(s));
  const [location, ...rest] = segments;
  if (location === undefined) return 'body';
  if (!['body', 'query', 'headers', 'params', 'path', 'cookies'].includes(location)) return segments.join('.');
  if (rest.length === 0) return location;
  return rest.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc.length === 0 ? s : `${acc}.${s}`), '');
}

/** Where a validator path points: its first segment as OpenAPI's `in` (`/headers/x` -> `header`). */
const LOCATIONS: Readonly<Record<string, string>> = {
  body: 'body',
  query: 'query',
  headers: 'header',
  params: 'path',
  path: 'path',
  cookies: 'cookie',
};

/** A validator error as a field problem: `/query/limit` -> `{in: 'query', field: 'limit', path: ['limit']}`. */
export function fieldProblem(path: string, reason: string): FieldProblem {
  const segments = path
    .replace(/^[./]/, '')
    .split(/[./]/)
    .filter((s) => s.length > 0)
    .map((s) => unescapePointerToken(s));
  const location = segments[0] === undefined ? 'body' : LOCATIONS[segments[0]];
  const rest = location === undefined ? segments : segments.slice(1);
  return {
    ...(location === undefined ? {} : { in: location }),
    field: fieldName(path),
    path: rest.map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    reason,
  };
}

/** The scaffold's own `details` keys (`body`, a header name) as field problems, for answers built without a path. */
function problemsOfDetails(details: Record<string, string>): FieldProblem[] {
  return Object.entries(details).map(([field, reason]) =>
    field === 'body' || field === 'path'
      ? { in: field, field, path: [], reason }
      : field.startsWith('content-')
        ? { in: 'header', field, path: [field], reason }
        : { field, path: [field], reason },
  );
}

interface ValidatorLikeError {
  status: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
  headers?: Record<string, string>;
}

function isValidatorError(err: unknown): err is ValidatorLikeError {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

function detailsOf(errors: ValidatorLikeError['errors']): { details: Record<string, string>; problems: FieldProblem[] } | undefined {
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  // A null-prototype object: a field called `__proto__` (a prototype-pollution probe) becomes an own key like any
  // other instead of silently replacing the object's prototype and vanishing from `details`.
  const details = Object.create(null) as Record<string, string>;
  const problems: FieldProblem[] = [];
  for (const e of errors) {
    const key = fieldName(e.path ?? '');
    // keep the first message per field (allErrors may report several for one value)
    if (Object.hasOwn(details, key)) continue;
    details[key] = e.message ?? 'is invalid';
    problems.push(fieldProblem(e.path ?? '', details[key]));
  }
  return { details, problems };
}

/** zlib's errors (`Z_DATA_ERROR`, `Z_BUF_ERROR`, ...) when a body does not match its `Content-Encoding`. */
function isDecompressionError(err: object): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^Z_[A-Z_]+$|^ERR_ZLIB/.test(code);
}

/**
 * What went wrong, before it is shaped: HttpError, request rejections (`status`, `errors[]`), body-parser errors
 * (`type: 'entity.parse.failed' | 'entity.too.large' | 'charset.unsupported'...`, zlib errors of a body that does not
 * match its `Content-Encoding`), a path whose percent-encoding does not decode (the router's URIError) and anything
 * else (-> 500 without internals). Every 4xx names what to fix in `details` (header names lower-case, as HTTP/2
 * sends them and Node exposes them).
 */
export function classifyError(err: unknown): RuntimeError {
  if (err instanceof HttpError) {
    const kind = KIND_BY_CODE.get(err.code);
    return {
      status: err.status,
      code: err.code,
      message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      headers: err.headers ?? {},
      internal: err.status >= 500,
      ...(kind === undefined ? {} : { kind }),
    };
  }
  if (typeof err !== 'object' || err === null) return internalError();
  const type = (err as { type?: unknown }).type;
  if (type === 'entity.parse.failed') {
    return envelope(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { body: 'is not valid JSON' });
  }
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: unknown }).limit;
    return envelope(413, RUNTIME_ERROR_CODES.tooLarge, 'Request body too large', {
      body: typeof limit === 'number' ? `must be at most ${limit} bytes` : 'is too large',
    });
  }
  if (type === 'charset.unsupported') {
    return envelope(415, RUNTIME_ERROR_CODES.unsupportedMediaType, 'Unsupported charset', { 'content-type': 'charset must be utf-8' });
  }
  if (type === 'encoding.unsupported') {
    return envelope(415, RUNTIME_ERROR_CODES.unsupportedMediaType, 'Unsupported content encoding', {
      'content-encoding': 'must be identity, gzip, deflate or br',
    });
  }
  if (isDecompressionError(err)) {
    return envelope(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
      'content-encoding': 'the body is not valid data in the declared encoding; send it encoded that way or without Content-Encoding',
    });
  }
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set' || type === 'stream.not.readable') {
    return envelope(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
      body: 'was not received completely; send it again with a correct Content-Length',
    });
  }
  if (err instanceof URIError && (err as { status?: unknown }).status === 400) {
    return envelope(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { path: 'contains malformed percent-encoding' });
  }
  const multerCode = (err as { code?: unknown }).code;
  if (typeof multerCode === 'string' && /^LIMIT_(FILE|PART)_(SIZE|COUNT)$|^LIMIT_FILE_SIZE$/.test(multerCode)) {
    const field = (err as { field?: unknown }).field;
    return envelope(413, RUNTIME_ERROR_CODES.tooLarge, 'File too large', {
      [typeof field === 'string' && field !== '' ? field : 'file']: 'is too large',
    });
  }
  if (isValidatorError(err) && err.status >= 400 && err.status < 500) {
    const known = STATUS_CODES[err.status];
    const code = known?.code ?? `ERR_REQUEST_${err.status}`;
    const message = err.status === 400 ? VALIDATION_MESSAGE : (known?.message ?? 'Request rejected');
    // A rejected request names what to fix; 404 and 405 name no field (`Allow` says what to do on a 405)
    const fields = [400, 413, 415].includes(err.status) ? detailsOf(err.errors) : undefined;
    const details = fields?.details ?? (err.status === 400 ? { request: err.message ?? 'is invalid' } : undefined);
    return envelope(err.status, code, message, details, err.status === 405 ? (err.headers ?? {}) : {}, fields?.problems);
  }
  return internalError();
}

/**
 * `classifyError` answered in Paygate's envelope (what Paygate's spec declares; the scaffold itself shapes errors
 * from the spec it serves, error-shapes.ts). Kept for code that builds Paygate's envelope outside a request.
 */
export function mapError(err: unknown): MappedError {
  const e = classifyError(err);
  const body: ErrorEnvelope = { success: false, error: { code: e.code, message: e.message } };
  if (e.details !== undefined) body.error.details = e.details;
  return { status: e.status, body, headers: e.headers, internal: e.internal };
}

/** The runtime's own codes -> their kind (the spec's error mapper renames them, D119). */
const KIND_BY_CODE: ReadonlyMap<string, RuntimeErrorKind> = new Map(
  Object.entries(RUNTIME_ERROR_CODES).map(([kind, code]) => [code, kind as RuntimeErrorKind]),
);

function internalError(): RuntimeError {
  return { status: 500, code: INTERNAL.error.code, message: INTERNAL.error.message, headers: {}, internal: true, kind: 'internal' };
}

function envelope(
  status: number,
  code: string,
  message: string,
  details?: Record<string, string>,
  headers: Record<string, string> = {},
  problems?: FieldProblem[],
): RuntimeError {
  const kind = KIND_BY_CODE.get(code);
  return {
    status,
    code,
    message,
    ...(details === undefined ? {} : { details, problems: problems ?? problemsOfDetails(details) }),
    headers,
    internal: false,
    ...(kind === undefined ? {} : { kind }),
  };
}
