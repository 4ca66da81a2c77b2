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

/** Transport options any spec's generated client takes: where, how to fetch, how to retry. No credentials (D121). */
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
  const middleware = new MiddlewareWatch();
  const client = createClient<Paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers },
    Request: requestClass(() => middleware.none),
    fetch: createRetryingFetch(options),
  });
  middleware.watch(client);
  return client;
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

/**
 * Wrap a fetch implementation with Paygate's retry policy. Retries network errors, 429, 5xx and 409
 * `ERR_IDEMPOTENCY_409` (request still in flight) with exponential backoff, honouring `Retry-After`. Only idempotent
 * methods and POSTs carrying an `Idempotency-Key` are retried; the same Request (same key) is re-sent each time.
 * @internal used by {@link createTransport}
 */
/** The init a {@link PaygateRequest} was constructed from. */
const REQUEST_INIT = Symbol('paygate.requestInit');

/**
 * The `Request` class openapi-fetch constructs for us: a plain `Request` (middlewares, `instanceof Request`,
 * `new Request(req)` all behave as usual) that also remembers the init it was built from. With the default fetch this
 * lets the transport call `fetch(url, init)` instead of `fetch(request)`: undici then builds ONE request instead of
 * re-wrapping ours (a second construction plus an abort-signal follower and finalizer per call), and a retry can
 * re-send a string body without `request.clone()`.
 */
class PaygateRequest extends Request {
  readonly [REQUEST_INIT]: RequestInit | undefined;
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    super(input, init);
    this[REQUEST_INIT] = init;
  }
}

/**
 * Bodies the direct path takes: none, or a string (what the JSON serializer produces). Other bodies (FormData,
 * Blob, URLSearchParams, streams) keep the Request path: for them the Request derived headers (a multipart boundary)
 * that must travel with exactly that serialization.
 */
function isReplayableBody(body: unknown): boolean {
  return body === undefined || body === null || typeof body === 'string';
}

/** Methods a `Request` upper-cases (the Fetch standard's normalisation); any other method is kept as written. */
const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

function normalisedMethod(method: string | undefined): string {
  if (method === undefined) return 'GET';
  const upper = method.toUpperCase();
  return NORMALISED_METHODS.has(upper) ? upper : method;
}

/**
 * The request openapi-fetch constructs when no middleware will see it (D87): the URL, method, headers and init as
 * they are, with no `Request` built. The transport then calls `fetch(url, init)`, so a call constructs ONE Request
 * (inside fetch) as a plain `fetch` does, instead of two (ours, URL parse, header copy and an AbortSignal, then
 * fetch's). It is a complete `Request`: anything else it is asked for (clone, body readers, cache, mode...) comes from
 * a real {@link PaygateRequest} built on first use from the same init, so a custom fetch or a later reader sees
 * exactly what a constructed Request would have been.
 */
class RequestDraft implements Request {
  readonly [REQUEST_INIT]: RequestInit | undefined;
  readonly method: string;
  readonly headers: Headers;
  private built: PaygateRequest | undefined;

  constructor(
    readonly url: string,
    init: RequestInit | undefined,
  ) {
    this[REQUEST_INIT] = init;
    this.method = normalisedMethod(init?.method);
    // openapi-fetch passes the Headers it merged for this call alone (a fresh object): used as is, no copy
    this.headers = init?.headers instanceof Headers ? init.headers : new Headers(init?.headers);
  }

  /** The real Request this draft stands for, with the headers as they are now (built once). */
  request(): PaygateRequest {
    this.built ??= new PaygateRequest(this.url, { ...this[REQUEST_INIT], method: this.method, headers: this.headers });
    return this.built;
  }

  get signal(): AbortSignal {
    return this[REQUEST_INIT]?.signal ?? this.request().signal;
  }
  get body() {
    return this.request().body;
  }
  get bodyUsed() {
    return this.request().bodyUsed;
  }
  get cache() {
    return this.request().cache;
  }
  get credentials() {
    return this.request().credentials;
  }
  get destination() {
    return this.request().destination;
  }
  get integrity() {
    return this.request().integrity;
  }
  get keepalive() {
    return this.request().keepalive;
  }
  get mode() {
    return this.request().mode;
  }
  get redirect() {
    return this.request().redirect;
  }
  get referrer() {
    return this.request().referrer;
  }
  get referrerPolicy() {
    return this.request().referrerPolicy;
  }
  clone(): Request {
    return this.request().clone();
  }
  arrayBuffer() {
    return this.request().arrayBuffer();
  }
  blob() {
    return this.request().blob();
  }
  bytes() {
    return this.request().bytes();
  }
  formData() {
    return this.request().formData();
  }
  json(): Promise<unknown> {
    return this.request().json();
  }
  text() {
    return this.request().text();
  }
}

/**
 * The `Request` class given to openapi-fetch: a draft while `drafting()` says no middleware will see the request and
 * the body is a string (or none), else a real {@link PaygateRequest}.
 */
function requestClass(drafting: () => boolean): typeof Request {
  return class TransportRequest extends PaygateRequest {
    // biome-ignore lint/correctness/noUnreachableSuper: a draft is returned instead of this instance (see above)
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      // biome-ignore lint/correctness/noConstructorReturn: openapi-fetch calls `new Request(...)`; a draft stands in for it
      if (typeof input === 'string' && drafting() && isReplayableBody(init?.body)) return new RequestDraft(input, init);
      super(input, init);
    }
  };
}

/** The Request a custom fetch (or anything outside this file) gets for a request: drafts become real Requests. */
function realRequest(request: Request): Request {
  return request instanceof RequestDraft ? request.request() : request;
}

/** `fetch(url, init)` arguments equivalent to `fetch(request)`, when the request is ours and its body replayable. */
function directInit(request: Request): RequestInit | undefined {
  if (!(request instanceof PaygateRequest) && !(request instanceof RequestDraft)) return undefined;
  const init = request[REQUEST_INIT];
  if (!isReplayableBody(init?.body)) return undefined;
  // Headers as they are NOW (middlewares may have changed them); method normalised by the Request.
  return { ...init, method: request.method, headers: request.headers };
}

function checkedIdempotencyKey(newKey: () => string): string {
  const key = newKey();
  if (typeof key !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(key)) {
    throw new TypeError('idempotencyKey() must return 1..255 printable ASCII characters');
  }
  return key;
}

export function createRetryingFetch(
  options: Pick<PaygateClientOptions, 'fetch' | 'maxRetries' | 'sleep'>,
  /** @internal createTransport: add a fresh `Idempotency-Key` to POSTs without one (once per logical call). */
  idempotencyKey?: () => string,
) {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
    throw new TypeError(`PaygateClientOptions.maxRetries must be an integer 0..${MAX_RETRIES_LIMIT}, got ${String(maxRetries)}`);
  }
  const sleep = options.sleep ?? defaultSleep;

  return async function paygateFetch(input: Request): Promise<Response> {
    // A custom fetch always gets a real Request (a draft is built into one here); the default fetch gets (url, init).
    const request = options.fetch === undefined ? input : realRequest(input);
    if (idempotencyKey !== undefined && request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', checkedIdempotencyKey(idempotencyKey));
    }
    const custom = options.fetch;
    // Default fetch: send (url, init) directly (see PaygateRequest). A custom fetch still gets the Request.
    const direct = custom === undefined ? directInit(request) : undefined;
    const retryable = isRetryableRequest(request) && maxRetries > 0;
    for (let attempt = 0; ; attempt++) {
      const canRetry = retryable && attempt < maxRetries;
      let response: Response;
      try {
        if (direct !== undefined) {
          response = await globalThis.fetch(request.url, direct);
        } else {
          // Keep the original Request unconsumed while another attempt may follow.
          response = await (custom ?? globalThis.fetch)(canRetry ? request.clone() : request);
        }
      } catch (error) {
        if (!canRetry || request.signal.aborted) throw error;
        await sleep(backoffDelay(attempt));
        continue;
      }
      if (!canRetry || !(await isRetryableResponse(response))) return response;
      const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
      if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return response;
      await response.body?.cancel().catch(() => undefined);
      // 503: at least Retry-After, growing and spread out (D93, ./unavailable-retry.ts)
      const backoff = backoffDelay(attempt);
      await sleep(unavailableRetryDelay({ status: response.status, retryAfterMs: retryAfter, attempt, backoffMs: backoff }) ?? retryAfter ?? backoff);
    }
  };
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
  const middleware = new MiddlewareWatch();
  const client = createClient<Paths>({ baseUrl: options.baseUrl, headers, Request: requestClass(() => middleware.none), fetch: createRetryingFetch(options, newKey) });
  middleware.watch(client);
  return client;
}

function hasMiddleware(init: unknown): boolean {
  return typeof init === 'object' && init !== null && 'middleware' in init && Array.isArray(init.middleware) && init.middleware.length > 0;
}

/**
 * Whether a request openapi-fetch is constructing right now can be a {@link RequestDraft}: only while one of the
 * client's call methods runs synchronously (openapi-fetch builds the Request before its first `await`), with no
 * middleware registered by `use` and none given to the call. Middleware receives and may return real Requests, so it
 * always gets them. Should openapi-fetch ever construct later, no call is running then and every request is real.
 */
class MiddlewareWatch {
  private registered: Middleware[] = [];
  private callWithoutMiddleware = false;

  get none(): boolean {
    return this.callWithoutMiddleware && this.registered.length === 0;
  }

  watch<Paths extends {}>(client: Client<Paths>): void {
    const use = client.use.bind(client);
    const eject = client.eject.bind(client);
    client.use = (...added) => {
      use(...added); // validates (throws before anything is registered) and registers, as before
      for (const m of added) if (m) this.registered.push(m);
    };
    client.eject = (...removed) => {
      eject(...removed);
      for (const m of removed) {
        const i = this.registered.indexOf(m);
        if (i !== -1) this.registered.splice(i, 1);
      }
    };
    // each call method, and where it takes its init (which may carry per-call middleware)
    client.request = this.tracked(client.request, 2);
    client.GET = this.tracked(client.GET, 1);
    client.PUT = this.tracked(client.PUT, 1);
    client.POST = this.tracked(client.POST, 1);
    client.DELETE = this.tracked(client.DELETE, 1);
    client.OPTIONS = this.tracked(client.OPTIONS, 1);
    client.HEAD = this.tracked(client.HEAD, 1);
    client.PATCH = this.tracked(client.PATCH, 1);
    client.TRACE = this.tracked(client.TRACE, 1);
  }

  private tracked<F extends (...args: never[]) => unknown>(call: F, initAt: number): F {
    const watch = this;
    return function trackedCall(...args: Parameters<F>) {
      watch.callWithoutMiddleware = !hasMiddleware(args[initAt]);
      try {
        return call(...args);
      } finally {
        watch.callWithoutMiddleware = false;
      }
    } as F;
  }
}
