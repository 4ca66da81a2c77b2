/**
 * What the generated facade (client.gen.ts) calls: one `call` per operation around the openapi-fetch transport, the
 * `init` object it passes, and the multipart / urlencoded body serialisers. Hand-written so it is type-checked and
 * tested here; the generated file only lists operations.
 */
import {
  toDeclaredResult,
  toResult,
  type ApiResult,
  type DeclaredErrors,
  type ErrorEnvelope,
  type OpenApiFetchResponse,
  type PaygateResult,
  type UnexpectedResponseError,
} from './result.js';
import { applyAuth, checkAuthConfig, type AuthTarget, type SecurityRequirement, type SecuritySchemes } from './security.js';

/**
 * Per-call options: headers (the operation's declared header parameters, typed, plus any extra header such as
 * `Authorization` or a tracing id) and an abort signal. A header given here wins over the configured credentials.
 */
// biome-ignore lint/complexity/noBannedTypes: `{}` is "no declared header parameters": only the free-form headers remain
export interface CallOptions<H extends object = {}> {
  headers?: H & Record<string, string | undefined>;
  signal?: AbortSignal;
}

/** An operation's `Idempotency-Key`-style header as the spec declares it (name and the rules of its schema). */
export interface IdempotencyKeySpec {
  name: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

/** What the generated client knows about one operation at run time (deduplicated constants in client.gen.ts). */
export interface OperationMeta {
  security: SecurityRequirement;
  errors: DeclaredErrors;
  /** Present when the operation declares an idempotency-key header: a fresh key is sent unless the call gives one (D123). */
  idempotencyKey?: IdempotencyKeySpec;
}

/** Options of the generated caller: credentials per scheme, key generator, default headers (from `x-client-option`). */
export interface CallerOptions {
  auth?: Readonly<Record<string, unknown>>;
  idempotencyKey?: () => string;
  /** Headers sent on every call unless the call gives them (e.g. Paygate's `merchantId` -> `X-Merchant-ID`). */
  defaultHeaders?: Readonly<Record<string, string>>;
}

function keyChecker(spec: IdempotencyKeySpec): (key: string) => boolean {
  const pattern = spec.pattern === undefined ? undefined : new RegExp(spec.pattern, 'u');
  const min = spec.minLength ?? 1;
  const max = spec.maxLength ?? Number.POSITIVE_INFINITY;
  return (key) => typeof key === 'string' && [...key].length >= min && [...key].length <= max && (pattern === undefined || pattern.test(key));
}

function hasHeader(headers: Readonly<Record<string, string | undefined>> | undefined, name: string): boolean {
  if (headers === undefined) return false;
  const lower = name.toLowerCase();
  return Object.keys(headers).some((k) => k.toLowerCase() === lower && headers[k] !== undefined);
}

/**
 * The generated client's one way to send a call: adds the credentials the operation's security requires, its
 * idempotency key where it declares one, and turns the answer into a result typed by the declared error schemas.
 * `go` is the typed openapi-fetch call (so paths and methods stay type-checked in client.gen.ts).
 */
export function createCaller(schemes: SecuritySchemes, options: CallerOptions = {}) {
  const auth = options.auth ?? {};
  checkAuthConfig(schemes, auth);
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const checkers = new WeakMap<IdempotencyKeySpec, (key: string) => boolean>();
  const defaults = Object.entries(options.defaultHeaders ?? {});

  function prepare(meta: OperationMeta, value: FetchInit): void | Promise<void> {
    const given = value.params.header as Record<string, string | undefined> | undefined;
    const target: AuthTarget = { headers: {}, query: {}, cookies: [] };
    for (const [name, v] of defaults) if (!hasHeader(given, name)) target.headers[name] = v;
    const key = meta.idempotencyKey;
    if (key !== undefined && !hasHeader(given, key.name)) {
      let check = checkers.get(key);
      if (check === undefined) checkers.set(key, (check = keyChecker(key)));
      const generated = newKey();
      if (!check(generated)) throw new TypeError(`idempotencyKey() returned a key the spec's ${key.name} rules refuse: ${JSON.stringify(generated)}`);
      target.headers[key.name] = generated;
    }
    const finish = (): void => {
      // a header the call gives wins over a credential (e.g. a per-call Authorization)
      for (const name of Object.keys(target.headers)) if (hasHeader(given, name)) delete target.headers[name];
      if (target.cookies.length > 0 && !hasHeader(given, 'Cookie')) target.headers.Cookie = target.cookies.join('; ');
      if (Object.keys(target.query).length > 0) value.params.query = { ...target.query, ...(value.params.query as object | undefined) };
      if (Object.keys(target.headers).length > 0) value.headers = target.headers;
    };
    const pending = meta.security.length > 0 ? applyAuth(schemes, auth, meta.security, target) : undefined;
    if (pending === undefined) return finish();
    return pending.then(finish);
  }

  return function send<T, E>(
    meta: OperationMeta,
    request: never,
    go: (init: never) => Promise<{ response: Response }>,
  ): Promise<ApiResult<T, E | UnexpectedResponseError>> {
    const value = request as FetchInit;
    const pending = prepare(meta, value);
    if (pending === undefined) return toDeclaredResult<T, E>(go(value as never), meta.errors);
    return pending.then(() => toDeclaredResult<T, E>(go(value as never), meta.errors));
  };
}

/** The request init object openapi-fetch receives. */
export interface FetchInit {
  params: { path?: object; query?: object; header?: object };
  body?: unknown;
  bodySerializer?: (body: never) => unknown;
  parseAs?: 'text' | 'blob';
  signal?: AbortSignal;
  /** Credentials and generated headers (openapi-fetch merges them under `params.header`, which wins). */
  headers?: Record<string, string>;
}

/** The openapi-fetch call as a result (`data` on 2xx, else the error envelope with codes `C`). */
export function call<T, C extends string = string>(promise: Promise<{ response: Response }>): Promise<PaygateResult<T, C>> {
  return toResult(promise as Promise<OpenApiFetchResponse<T, ErrorEnvelope<C>>>);
}

/** multipart/form-data body: one part per value (arrays repeat the field); null/undefined are left out. */
export function toFormData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      form.append(name, item instanceof Blob ? item : String(item));
    }
  }
  return form;
}

/** application/x-www-form-urlencoded body: arrays repeat the field; null/undefined are left out. */
export function toUrlEncoded(body: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) form.append(name, String(item));
  }
  return form;
}

/**
 * The init object of one call. Typed `never` on purpose: the generated public signatures are typed from the spec,
 * and openapi-fetch's overloads cannot express the optional-by-default headers.
 */
export function init(
  path: object | undefined,
  query: object | undefined,
  opts: CallOptions<object> | undefined,
  body?: unknown,
  bodySerializer?: (body: never) => unknown,
  parseAs?: 'text' | 'blob',
): never {
  const value: FetchInit = { params: { path, query, header: opts?.headers } };
  if (body !== undefined) value.body = body;
  if (bodySerializer !== undefined) value.bodySerializer = bodySerializer;
  if (parseAs !== undefined) value.parseAs = parseAs;
  if (opts?.signal !== undefined) value.signal = opts.signal;
  return value as never;
}
