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
import { createQuerySerializer, defaultBodySerializer, defaultPathSerializer } from 'openapi-fetch';
import { applyAuth, checkAuthConfig, type AuthTarget, type SecurityRequirement, type SecuritySchemes } from './security.js';
import { createSender, isIdempotentMethod, readResponse, type SendRequest, type TransportOptions } from './transport.js';
import { markedTemplate, type PathStyles } from './path-styles.js';
import { styledQuery, type QueryStyles } from './query-styles.js';

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
  /** Present when the operation declares an idempotency-key header: a fresh key is sent unless the call gives one (D123 client idempotency keys only where declared). */
  idempotencyKey?: IdempotencyKeySpec;
  /** The query parameters written by their declared style, where openapi-fetch's default is not it (D456 query objects and arrays of objects serialised). */
  query?: QueryStyles;
  /** The path parameters written by their declared style, where it is not simple and unexploded (D413, "Object path parameters read by their style"). */
  path?: PathStyles;
}

/**
 * Options of the generated caller: where and how to send (the transport options), credentials per scheme, key
 * generator, default headers (from `x-client-option`).
 */
export interface CallerOptions {
  /** Base URL, fetch, retries and static headers, as given to the generated client (see `TransportOptions`). */
  transport: TransportOptions;
  auth?: Readonly<Record<string, unknown>>;
  idempotencyKey?: () => string;
  /** Headers sent on every call unless the call gives them (e.g. Paygate's `merchantId` -> `X-Merchant-ID`). */
  defaultHeaders?: Readonly<Record<string, string>>;
}

function keyChecker(spec: IdempotencyKeySpec): (key: string) => boolean {
  const pattern = spec.pattern === undefined ? undefined : new RegExp(spec.pattern, 'u');
  const min = spec.minLength ?? 1;
  const max = spec.maxLength ?? Number.POSITIVE_INFINITY;
  return (key) =>
    typeof key === 'string' && [...key].length >= min && [...key].length <= max && (pattern === undefined || pattern.test(key));
}

/** Whether `headers` gives `name` (any case; a `null` counts: it removes the header, as in openapi-fetch). */
function hasHeader(headers: Readonly<Record<string, string | null | undefined>> | undefined, name: string): boolean {
  if (headers === undefined) return false;
  if (headers[name] !== undefined) return true;
  const lower = name.toLowerCase();
  for (const k in headers) if (headers[k] !== undefined && k.toLowerCase() === lower) return true;
  return false;
}

type HeaderRecord = Record<string, string | null | undefined>;

/** `Object.keys(o).length > 0` without the array. */
function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * The headers of one call, lowest priority first: the transport's static headers, the caller's (credentials, default
 * headers, idempotency key: already without those the call gives), then the call's own; `null` removes, `undefined`
 * is nothing. A plain record: fetch validates it once while building its Request (a `Headers` here would be
 * validated twice and copied).
 */
function callHeaders(
  statics: readonly (readonly [string, string])[],
  own: Record<string, string> | undefined,
  given: HeaderRecord | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of statics) if (!hasHeader(own, name) && !hasHeader(given, name)) headers[name] = value;
  if (own !== undefined) for (const name in own) headers[name] = own[name]!;
  if (given !== undefined) {
    for (const name in given) {
      const value = given[name];
      if (typeof value === 'string') headers[name] = value;
    }
  }
  return headers;
}

/** A path split at its `{name}` parameters: literals[0] name[0] literals[1] ... (placeholders: the `{name}` as written). */
interface PathTemplate {
  literals: string[];
  names: string[];
  placeholders: string[];
}

/** Null when a parameter has a style marker (`{.x}`, `{;x}`, `{x*}`): openapi-fetch's serializer handles those. */
function parsePathTemplate(path: string): PathTemplate | null {
  const template: PathTemplate = { literals: [], names: [], placeholders: [] };
  let at = 0;
  for (const match of path.matchAll(/\{[^{}]+\}/g)) {
    const name = match[0].slice(1, -1);
    if (name.endsWith('*') || name.startsWith('.') || name.startsWith(';')) return null;
    template.literals.push(path.slice(at, match.index));
    template.names.push(name);
    template.placeholders.push(match[0]);
    at = match.index + match[0].length;
  }
  template.literals.push(path.slice(at));
  return template;
}

/**
 * The URL of a filled template with a query part or a fragment (D410 every path template real specs use is routed): what follows `#` is never sent (and `fetch`
 * would drop a query written after it), and a query string written into the template is joined with the call's own
 * query, its `k={x}` terms left to the query parameter `x` they name (the call's query carries it).
 */
export function sendableUrl(filled: string, search: string): string {
  const path = filled.split('#', 1)[0]!;
  const question = path.indexOf('?');
  const written =
    question === -1
      ? []
      : path
          .slice(question + 1)
          .split('&')
          .filter((term) => term !== '' && !/\{[^}]*\}/.test(term));
  const query = [...written, ...(search === '' ? [] : [search])].join('&');
  return (question === -1 ? path : path.slice(0, question)) + (query === '' ? '' : `?${query}`);
}

/** openapi-fetch's default body serialisation: urlencoded when the call's Content-Type says so, else JSON (or FormData as is). */
function serializeBody(body: unknown, headers: Record<string, string>): BodyInit {
  const type = headers['Content-Type'] ?? headers['content-type'];
  if (type === 'application/x-www-form-urlencoded') return new URLSearchParams(body as Record<string, string>).toString();
  return defaultBodySerializer(body);
}

/** The idempotency-key header of the retry rule (D93 client retries 503 only when safe; D123 client idempotency keys only where declared), also when an operation declares none but a call gives it. */
const IDEMPOTENCY_KEY = 'Idempotency-Key';

/**
 * The generated client's one way to send a call: adds the credentials the operation's security requires, its
 * idempotency key where it declares one, and turns the answer into a result typed by the declared error schemas.
 * Sends with `fetch(url, init)` itself (D152 client calls bypass openapi-fetch's coreFetch): the generated call's method and path are the spec's, its types come
 * from openapi-typescript's `paths`; the openapi-fetch client (`transport`) stays for calls the facade does not cover.
 */
export function createCaller(schemes: SecuritySchemes, options: CallerOptions) {
  const auth = options.auth ?? {};
  checkAuthConfig(schemes, auth);
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const checkers = new WeakMap<IdempotencyKeySpec, (key: string) => boolean>();
  const defaults = Object.entries(options.defaultHeaders ?? {});
  const transport = options.transport;
  // as openapi-fetch: one trailing slash of the base URL is dropped
  const baseUrl = transport.baseUrl.endsWith('/') ? transport.baseUrl.slice(0, -1) : transport.baseUrl;
  const statics = Object.entries(transport.headers ?? {});
  const sendRequest = createSender(transport);
  // openapi-fetch's serializers (public exports), so URLs and bodies are encoded exactly as its client encodes them
  const querySerializer = createQuerySerializer();
  const templates = new Map<string, PathTemplate | null>();

  /**
   * The path with its parameters, as openapi-fetch's defaultPathSerializer writes it. A template of plain `{name}`
   * parameters (every generated operation's) is split once and filled with `encodeURIComponent`; anything else
   * (label, matrix, exploded, array or object values, a `$` pattern its `String.replace` would interpret) goes to
   * openapi-fetch's own serializer.
   */
  function pathWith(path: string, values: Record<string, unknown>): string {
    let template = templates.get(path);
    if (template === undefined) templates.set(path, (template = parsePathTemplate(path)));
    if (template === null) return defaultPathSerializer(path, values);
    let out = template.literals[0]!;
    for (let i = 0; i < template.names.length; i++) {
      const value = values[template.names[i]!];
      let part: string;
      if (value === undefined || value === null) part = template.placeholders[i]!;
      else if (typeof value === 'object' || (part = encodeURIComponent(value as string | number | boolean)).includes('$'))
        return defaultPathSerializer(path, values);
      out += part + template.literals[i + 1]!;
    }
    return out;
  }

  // by the operation's styles (a generated constant) and then the path: two methods of one path may style differently
  const marked = new WeakMap<PathStyles, Map<string, string>>();
  /** The template with its styled parameters marked (D413, "Object path parameters read by their style"), once per operation. */
  function markedPath(path: string, styles: PathStyles): string {
    let byPath = marked.get(styles);
    if (byPath === undefined) marked.set(styles, (byPath = new Map()));
    let out = byPath.get(path);
    if (out === undefined) byPath.set(path, (out = markedTemplate(path, styles)));
    return out;
  }

  /** Send one call (D152 client calls bypass openapi-fetch's coreFetch): URL, headers and body built here, `fetch(url, init)`, the response read as openapi-fetch reads it. */
  async function perform(
    meta: OperationMeta,
    method: string,
    path: string,
    value: FetchInit,
  ): Promise<{ data?: unknown; error?: unknown; response: Response }> {
    const params = value.params as { path?: Record<string, unknown>; query?: Record<string, unknown> };
    // as openapi-fetch's createFinalURL, with the path template parsed once per operation
    const filled = params.path === undefined ? path : pathWith(meta.path === undefined ? path : markedPath(path, meta.path), params.path);
    const serialized =
      meta.query === undefined ? querySerializer(params.query ?? {}) : styledQuery(meta.query, params.query ?? {}, querySerializer);
    const search = serialized.startsWith('?') ? serialized.slice(1) : serialized;
    const url =
      baseUrl +
      (filled.includes('?') || filled.includes('#') ? sendableUrl(filled, search) : search === '' ? filled : `${filled}?${search}`);
    const headers = callHeaders(statics, value.headers, value.params.header as HeaderRecord | undefined);
    let body: BodyInit | undefined;
    if (value.body !== undefined) {
      body = (
        value.bodySerializer !== undefined ? value.bodySerializer(value.body as never) : serializeBody(value.body, headers)
      ) as BodyInit;
      // a FormData or URLSearchParams body: fetch sets the Content-Type (and the multipart boundary) itself
      if (!(body instanceof FormData) && !(body instanceof URLSearchParams) && !hasHeader(headers, 'Content-Type'))
        headers['Content-Type'] = 'application/json';
    }
    const keyName = meta.idempotencyKey?.name ?? IDEMPOTENCY_KEY;
    const retryable =
      isIdempotentMethod(method) || (method === 'POST' && (hasHeader(headers, keyName) || hasHeader(headers, IDEMPOTENCY_KEY)));
    const init: SendRequest = { method, headers, retryable };
    if (body !== undefined) init.body = body;
    if (value.signal !== undefined) init.signal = value.signal;
    return readResponse(await sendRequest(url, init), method, value.parseAs);
  }

  function prepare(meta: OperationMeta, value: FetchInit): void | Promise<void> {
    const given = value.params.header as Record<string, string | undefined> | undefined;
    const target: AuthTarget = { headers: {}, query: {}, cookies: [] };
    for (const [name, v] of defaults) if (!hasHeader(given, name)) target.headers[name] = v;
    const key = meta.idempotencyKey;
    if (key !== undefined && !hasHeader(given, key.name)) {
      let check = checkers.get(key);
      if (check === undefined) checkers.set(key, (check = keyChecker(key)));
      const generated = newKey();
      if (!check(generated))
        throw new TypeError(`idempotencyKey() returned a key the spec's ${key.name} rules refuse: ${JSON.stringify(generated)}`);
      target.headers[key.name] = generated;
    }
    const finish = (): void => {
      // a header the call gives wins over a credential (e.g. a per-call Authorization)
      if (given !== undefined) for (const name in target.headers) if (hasHeader(given, name)) delete target.headers[name];
      if (target.cookies.length > 0 && !hasHeader(given, 'Cookie')) target.headers.Cookie = target.cookies.join('; ');
      if (hasKeys(target.query)) value.params.query = { ...target.query, ...(value.params.query as object | undefined) };
      if (hasKeys(target.headers)) value.headers = target.headers;
    };
    const pending = meta.security.length > 0 ? applyAuth(schemes, auth, meta.security, target) : undefined;
    if (pending === undefined) return finish();
    return pending.then(finish);
  }

  /** One call of operation `meta`: `method` and `path` as the spec declares them, `request` from {@link init}. */
  return function send<T, E>(
    meta: OperationMeta,
    method: string,
    path: string,
    request: never,
  ): Promise<ApiResult<T, E | UnexpectedResponseError>> {
    const value = request as FetchInit;
    const pending = prepare(meta, value);
    if (pending === undefined) return toDeclaredResult<T, E>(perform(meta, method, path, value), meta.errors);
    return pending.then(() => toDeclaredResult<T, E>(perform(meta, method, path, value), meta.errors));
  };
}

/** One generated call's request: parameters as openapi-fetch takes them, body, how to read the answer. */
export interface FetchInit {
  params: { path?: object; query?: object; header?: object };
  body?: unknown;
  bodySerializer?: (body: never) => unknown;
  parseAs?: 'text' | 'blob';
  signal?: AbortSignal;
  /** Credentials and generated headers (merged under `params.header`, which wins). */
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

/** What {@link createCaller} returns: sends one call of an operation. */
export type Caller = ReturnType<typeof createCaller>;

/**
 * One method of a generated client (D195 client type is a declared interface): called with the positional arguments the generated `XClient` interface
 * declares (each path parameter in order, then the body when the operation has one, the query when it has query
 * parameters, then the call options), it sends `init(path, query, opts, body, bodySerializer, parseAs)` through
 * `send`, exactly what a per-operation arrow function used to. Typed `never`, as {@link init} is: the interface the
 * generated client returns declares each method's type, so tsc does not type a function per operation.
 */
export function operation(
  send: Caller,
  meta: OperationMeta,
  method: string,
  path: string,
  pathNames: readonly string[],
  hasBody: boolean,
  hasQuery: boolean,
  bodySerializer?: (body: never) => unknown,
  parseAs?: 'text' | 'blob',
): never {
  const count = pathNames.length;
  const bodyAt = hasBody ? count : -1;
  const queryAt = hasQuery ? count + (hasBody ? 1 : 0) : -1;
  const optsAt = count + (hasBody ? 1 : 0) + (hasQuery ? 1 : 0);
  const method$ = (...args: unknown[]): Promise<unknown> => {
    let values: Record<string, unknown> | undefined;
    if (count > 0) {
      values = {};
      for (let i = 0; i < count; i++) values[pathNames[i]!] = args[i];
    }
    return send(
      meta,
      method,
      path,
      init(
        values,
        queryAt < 0 ? undefined : (args[queryAt] as object | undefined),
        args[optsAt] as CallOptions<object> | undefined,
        bodyAt < 0 ? undefined : args[bodyAt],
        bodySerializer,
        parseAs,
      ),
    );
  };
  return method$ as never;
}
