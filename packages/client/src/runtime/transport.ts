import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { unavailableRetryDelay } from './unavailable-retry.js';

/** Version reported in the `X-Paygate-Client` header. */
export const PAYGATE_CLIENT_VERSION = '0.1.0';

/** Options shared by {@link createTransport} and the generated `createPaygateClient`. */
export interface PaygateClientOptions {
  /** API root, e.g. `https://sandbox.paygate.example/api/v1` (no trailing slash needed). */
  baseUrl: string;
  /** Sent as `X-Client-ID`. */
  clientId: string;
  /** Sent as `X-Client-Secret`. Server-side only: never ship it to a browser. */
  clientSecret: string;
  /** Default `X-Merchant-ID` (partner credentials); a per-call `X-Merchant-ID` header parameter overrides it. */
  merchantId?: string;
  /** Custom fetch (tests, proxies, instrumentation). Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Retries after the first attempt for retryable failures. Default 2; 0 disables retries. */
  maxRetries?: number;
  /** Delay function used between retries (inject a fake in tests). Default `setTimeout`-based. */
  sleep?: (ms: number) => Promise<void>;
  /** Generates the automatic `Idempotency-Key` of each POST. Default `crypto.randomUUID()`. */
  idempotencyKey?: () => string;
}

const DEFAULT_MAX_RETRIES = 2;
const MAX_RETRIES_LIMIT = 10;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the response is returned to the caller instead. */
export const MAX_RETRY_AFTER_MS = 60_000;
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function clientHeaderValue(product = 'paygate-client-ts'): string {
  const proc = (globalThis as { process?: { version?: string } }).process;
  return `${product}/${PAYGATE_CLIENT_VERSION}${proc?.version ? ` node/${proc.version}` : ''}`;
}

/**
 * The value of a client-identification header a spec declares (`info.x-client-identification`, D121), e.g.
 * Paygate's `X-Paygate-Client: paygate-client-ts/0.1.0 node/v20...`. A spec that declares none gets no such header.
 */
export function clientIdentification(product: string): string {
  return clientHeaderValue(product);
}

/** Transport options any spec's generated client takes: where, how to fetch, how to retry. No credentials (D121 client auth per security scheme). */
export interface TransportOptions {
  /** API root, e.g. `https://api.example.com/v1` (no trailing slash needed). */
  baseUrl: string;
  /** Custom fetch (tests, proxies, instrumentation, mutual TLS). Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Retries after the first attempt for retryable failures. Default 2; 0 disables retries. */
  maxRetries?: number;
  /** Delay function used between retries (inject a fake in tests). Default `setTimeout`-based. */
  sleep?: (ms: number) => Promise<void>;
  /** Headers sent on every call (a per-call header overrides them). */
  headers?: Record<string, string>;
}

/**
 * The typed openapi-fetch client any generated client builds on: base URL, static headers and the retry policy, no
 * product headers and no credentials (those come per operation from the spec's security, see ./facade.ts).
 */
export function createHttpTransport<Paths extends {}>(options: TransportOptions): Client<Paths> {
  if (typeof options.baseUrl !== 'string' || options.baseUrl.trim() === '') {
    throw new TypeError('baseUrl is required (non-empty string)');
  }
  return createClient<Paths>({ baseUrl: options.baseUrl, headers: { ...options.headers }, fetch: createRetryingFetch(options) });
}

function requireString(options: PaygateClientOptions, name: 'baseUrl' | 'clientId' | 'clientSecret'): void {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`PaygateClientOptions.${name} is required (non-empty string)`);
  }
}

/** Parse `Retry-After` (delta-seconds or HTTP-date) into milliseconds; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": attempt 0 -> 250..500 ms, 1 -> 500..1000 ms, ... capped at 8 s. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Methods safe to send again (a POST only with an idempotency key, decided by the caller). */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method);
}

function isRetryableRequest(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(method)) return true;
  return method === 'POST' && request.headers.has('Idempotency-Key');
}

async function isRetryableResponse(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status >= 500) return true;
  if (response.status !== 409) return false;
  try {
    const body: unknown = await response.clone().json();
    return (body as { error?: { code?: unknown } } | null)?.error?.code === 'ERR_IDEMPOTENCY_409';
  } catch {
    return false;
  }
}

function checkedIdempotencyKey(newKey: () => string): string {
  const key = newKey();
  if (typeof key !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(key)) {
    throw new TypeError('idempotencyKey() must return 1..255 printable ASCII characters');
  }
  return key;
}

function checkedMaxRetries(options: Pick<TransportOptions, 'maxRetries'>): number {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
    throw new TypeError(`PaygateClientOptions.maxRetries must be an integer 0..${MAX_RETRIES_LIMIT}, got ${String(maxRetries)}`);
  }
  return maxRetries;
}

/**
 * The retry loop both ways of sending share. Retries network errors, 429, 5xx and 409 `ERR_IDEMPOTENCY_409` (request
 * still in flight) with exponential backoff, honouring `Retry-After` (a 503 per D93, ./unavailable-retry.ts). Only
 * `retryable` requests (idempotent methods, POSTs carrying an idempotency key) are retried; `attempt(last)` sends the
 * same request again (same key, same body), `last` telling it no other attempt follows.
 */
async function withRetries(
  attempt: (last: boolean) => Promise<Response>,
  retryable: boolean,
  maxRetries: number,
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  for (let n = 0; ; n++) {
    const canRetry = retryable && n < maxRetries;
    let response: Response;
    try {
      response = await attempt(!canRetry);
    } catch (error) {
      if (!canRetry || signal?.aborted === true) throw error;
      await sleep(backoffDelay(n));
      continue;
    }
    if (!canRetry || !(await isRetryableResponse(response))) return response;
    const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
    if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return response;
    await response.body?.cancel().catch(() => undefined);
    // 503: at least Retry-After, growing and spread out (D93, ./unavailable-retry.ts)
    const backoff = backoffDelay(n);
    await sleep(
      unavailableRetryDelay({ status: response.status, retryAfterMs: retryAfter, attempt: n, backoffMs: backoff }) ?? retryAfter ?? backoff,
    );
  }
}

/**
 * Wrap a fetch implementation with the retry policy, as openapi-fetch's `fetch` (it is given the `Request`
 * openapi-fetch built). The Request is cloned while another attempt may follow, so a retry re-sends the same body.
 * @internal used by {@link createHttpTransport} and {@link createTransport}
 */
export function createRetryingFetch(
  options: Pick<PaygateClientOptions, 'fetch' | 'maxRetries' | 'sleep'>,
  /** @internal createTransport: add a fresh `Idempotency-Key` to POSTs without one (once per logical call). */
  idempotencyKey?: () => string,
) {
  const maxRetries = checkedMaxRetries(options);
  const sleep = options.sleep ?? defaultSleep;
  return function paygateFetch(request: Request): Promise<Response> {
    if (idempotencyKey !== undefined && request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', checkedIdempotencyKey(idempotencyKey));
    }
    const fetchFn = options.fetch ?? globalThis.fetch;
    const retryable = maxRetries > 0 && isRetryableRequest(request);
    return withRetries((last) => fetchFn(last ? request : request.clone()), retryable, maxRetries, sleep, request.signal);
  };
}

/** One request of the generated client, as `fetch(url, init)` takes it (headers a plain record). */
export interface SendRequest extends RequestInit {
  method: string;
  headers: Record<string, string>;
  /** Whether the request may be sent again (idempotent method, or a POST carrying its idempotency key). */
  retryable: boolean;
}

/**
 * How the generated client sends (D152 client calls bypass openapi-fetch's coreFetch): `fetch(url, init)` with the init as built, so a call constructs one
 * `Request` (inside fetch), as a plain `fetch` call does, and a retry re-sends the same init (a string, FormData,
 * URLSearchParams or Blob body is read afresh by each fetch). A custom `fetch` gets a `Request` built from them, one
 * per attempt, as it always has.
 */
export function createSender(
  options: Pick<TransportOptions, 'fetch' | 'maxRetries' | 'sleep'>,
): (url: string, init: SendRequest) => Promise<Response> {
  const maxRetries = checkedMaxRetries(options);
  const sleep = options.sleep ?? defaultSleep;
  const custom = options.fetch;
  return (url, init) => {
    const retryable = init.retryable && maxRetries > 0;
    const attempt = custom === undefined ? () => globalThis.fetch(url, init) : () => custom(new Request(url, init));
    if (!retryable) return attempt();
    return withRetries(attempt, true, maxRetries, sleep, init.signal);
  };
}

/** How a response body is read: openapi-fetch's `parseAs` (JSON unless the operation answers text or binary). */
export type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

/**
 * A response as openapi-fetch returns it (`{ data }` on 2xx, `{ error }` otherwise), read by the same rules, so the
 * generated client's results are what they were when it called through openapi-fetch: no body for 204, HEAD or an
 * empty `Content-Length`; a 2xx body by `parseAs` (JSON without a length read as text, empty meaning none); an error
 * body as text, parsed as JSON when it is JSON. The body is read once.
 */
export async function readResponse(
  response: Response,
  method: string,
  parseAs: ParseAs = 'json',
): Promise<{ data?: unknown; error?: unknown; response: Response }> {
  const contentLength = response.headers.get('Content-Length');
  if (
    response.status === 204 ||
    method === 'HEAD' ||
    (contentLength === '0' && response.headers.get('Transfer-Encoding')?.includes('chunked') !== true)
  ) {
    return response.ok ? { data: undefined, response } : { error: undefined, response };
  }
  if (response.ok) {
    if (parseAs === 'stream') return { data: response.body, response };
    if (parseAs === 'json' && !contentLength) {
      const raw = await response.text();
      return { data: raw ? JSON.parse(raw) : undefined, response };
    }
    return { data: await response[parseAs](), response };
  }
  let error: unknown = await response.text();
  try {
    error = JSON.parse(error as string);
  } catch {
    // not JSON: the text as it came
  }
  return { error, response };
}

/**
 * openapi-fetch middleware adding Paygate headers: `X-Client-ID`, `X-Client-Secret`, `X-Merchant-ID` (when configured
 * and not given per call), `X-Paygate-Client`, and a fresh `Idempotency-Key` on every POST that has none (generated
 * once per logical call, so retries reuse it).
 * @internal used by {@link createTransport}
 */
export function createPaygateMiddleware(options: PaygateClientOptions): Middleware {
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const clientHeader = clientHeaderValue();
  return {
    onRequest({ request }) {
      const headers = request.headers;
      if (!headers.has('X-Client-ID')) headers.set('X-Client-ID', options.clientId);
      if (!headers.has('X-Client-Secret')) headers.set('X-Client-Secret', options.clientSecret);
      if (options.merchantId !== undefined && !headers.has('X-Merchant-ID')) headers.set('X-Merchant-ID', options.merchantId);
      headers.set('X-Paygate-Client', clientHeader);
      if (request.method.toUpperCase() === 'POST' && !headers.has('Idempotency-Key')) {
        headers.set('Idempotency-Key', checkedIdempotencyKey(newKey));
      }
      return request;
    },
  };
}

/**
 * Create the low-level typed transport: an openapi-fetch client for `Paths` (from openapi-typescript) with Paygate
 * authentication headers, automatic `Idempotency-Key` on POSTs and retries. The generated `createPaygateClient` builds on it.
 *
 * @example
 * ```ts
 * import type { paths } from './generated/schema.gen.js';
 * const api = createTransport<paths>({ baseUrl: 'http://localhost:3000', clientId: 'ck_test_...', clientSecret: 'cs_...', merchantId: '12345678' });
 * const { data, error } = await api.GET('/orders/{order_id}', { params: { path: { order_id: 'OD0000000000000001' } } });
 * ```
 */
export function createTransport<Paths extends {}>(options: PaygateClientOptions): Client<Paths> {
  requireString(options, 'baseUrl');
  requireString(options, 'clientId');
  requireString(options, 'clientSecret');
  if (options.merchantId !== undefined && (typeof options.merchantId !== 'string' || options.merchantId === '')) {
    throw new TypeError('PaygateClientOptions.merchantId must be a non-empty string when given');
  }
  // Static headers are merged by openapi-fetch before the Request is built (a per-call header overrides them), and the
  // Idempotency-Key is added by the retrying fetch: no per-request middleware pass, no Headers mutation after the fact.
  const headers: Record<string, string> = {
    'X-Client-ID': options.clientId,
    'X-Client-Secret': options.clientSecret,
    'X-Paygate-Client': clientHeaderValue(),
  };
  if (options.merchantId !== undefined) headers['X-Merchant-ID'] = options.merchantId;
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  return createClient<Paths>({ baseUrl: options.baseUrl, headers, fetch: createRetryingFetch(options, newKey) });
}
