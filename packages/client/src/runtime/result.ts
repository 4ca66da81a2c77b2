import type { ErrorEnvelope } from '@paygate/contract/types';

/**
 * Paygate's error envelope `{ success: false, error: { code, message, details? } }` (declared once, in
 * @paygate/contract). `C` is the union of error codes an operation can return (supplied by the generated client).
 */
export type { ErrorEnvelope };

/** The `error` object of Paygate's error envelope. `details` maps a field name to its error message. */
export type PaygateErrorBody<C extends string = string> = ErrorEnvelope<C>['error'];

/** Code used by {@link toResult} when an error response is not a Paygate error envelope (e.g. a proxy's HTML 502). */
export const UNEXPECTED_RESPONSE_CODE = 'ERR_UNEXPECTED_RESPONSE';
export type UnexpectedResponseCode = typeof UNEXPECTED_RESPONSE_CODE;
/** Envelope synthesised by {@link toResult} for error responses without a Paygate error envelope. */
export type UnexpectedResponseError = ErrorEnvelope<UnexpectedResponseCode>;

/**
 * Outcome of one API call: no exceptions for HTTP errors, narrow on `ok`.
 *
 * @example
 * ```ts
 * const r = await paygate.orders.get({ order_id: 'OD0000000000000001' });
 * if (r.ok) console.log(r.data.status);
 * else if (r.error.error.code === 'ERR_ORDER_404') console.log('no such order');
 * ```
 */
export type ApiResult<T, E = ErrorEnvelope> =
  | { ok: true; status: number; data: T; response: Response }
  | {
      ok: false;
      status: number;
      error: E;
      response: Response;
      /** The body as received (parsed JSON, else text; undefined when empty), also when `error` was synthesised. */
      body?: unknown;
    };

/**
 * The non-2xx statuses an operation declares (D122 client errors typed from declared statuses), as written in the spec (`'404'`, `'4XX'`, `'default'`), each
 * `true` when its declared body is JSON. A response whose status is covered (exact, then range, then default) is
 * returned with its body as `error`, typed by the generated client as that status's declared schema; any other
 * status (or a non-JSON body where JSON is declared, e.g. a proxy's HTML page) is `ERR_UNEXPECTED_RESPONSE`.
 */
export type DeclaredErrors = Readonly<Record<string, boolean>>;

/** Whether the spec declares `status`; `'json'` when its declared body is JSON. */
export function declaredError(errors: DeclaredErrors, status: number): 'json' | 'other' | undefined {
  const exact = errors[String(status)] ?? errors[`${Math.floor(status / 100)}XX`] ?? errors.default;
  return exact === undefined ? undefined : exact ? 'json' : 'other';
}

/** `ApiResult` whose error is the envelope with codes `C`, or the synthesised unexpected-response envelope. */
export type PaygateResult<T, C extends string = string> = ApiResult<T, ErrorEnvelope<C> | UnexpectedResponseError>;

/** The shape openapi-fetch resolves to (`FetchResponse`). */
export type OpenApiFetchResponse<T, E> = { data: T; error?: never; response: Response } | { data?: never; error: E; response: Response };

/** Success data type of an openapi-fetch response union. */
export type ResponseData<R> = R extends { data: infer D } ? D : never;

/**
 * Error type of an openapi-fetch response union, reduced to its Paygate error envelope members (other error bodies are
 * replaced by {@link UnexpectedResponseError} at runtime). Falls back to `ErrorEnvelope` when the operation declares no
 * typed error.
 */
export type ResponseErrorEnvelope<R> = [R extends { error: infer E } ? E : never] extends [infer E]
  ? [E] extends [never]
    ? ErrorEnvelope
    : unknown extends E
      ? ErrorEnvelope
      : Extract<E, { error: { code: string; message: string } }>
  : never;

/** True when `value` has the shape of a Paygate error envelope. */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
  return (
    typeof code === 'string' &&
    typeof message === 'string' &&
    (details === undefined || (typeof details === 'object' && details !== null && !Array.isArray(details)))
  );
}

function describeUnexpected(status: number, body: unknown): string {
  let snippet = '';
  if (typeof body === 'string' && body.length > 0) snippet = body;
  else if (body !== undefined && body !== null) {
    try {
      snippet = JSON.stringify(body);
    } catch {
      snippet = String(body);
    }
  }
  snippet = snippet.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `Unexpected HTTP ${status} response (a status or body the spec does not declare)${snippet ? `: ${snippet}` : ''}`;
}

/**
 * Convert an openapi-fetch call (`{ data, error, response }`) into an {@link ApiResult}. Success is decided by
 * `response.ok`. An error body that is not a Paygate error envelope becomes `ERR_UNEXPECTED_RESPONSE`, so
 * `result.error.error.code` is always safe to read. Network errors (after retries) still reject.
 *
 * @example
 * ```ts
 * const result = await toResult(client.GET('/orders/{order_id}', { params: { path: { order_id } } }));
 * if (!result.ok) throw new PaygateApiError(result);
 * ```
 */
export async function toResult<R extends { data?: unknown; error?: unknown; response: Response }>(
  promise: Promise<R>,
): Promise<ApiResult<ResponseData<R>, ResponseErrorEnvelope<R> | UnexpectedResponseError>> {
  const { data, error, response } = await promise;
  const status = response.status;
  if (response.ok) return { ok: true, status, data: data as ResponseData<R>, response };
  if (isErrorEnvelope(error)) return { ok: false, status, error: error as ResponseErrorEnvelope<R>, response, body: error };
  return { ok: false, status, error: unexpected(status, error), response, body: bodyAsReceived(error) };
}

function unexpected(status: number, body: unknown): UnexpectedResponseError {
  return { success: false, error: { code: UNEXPECTED_RESPONSE_CODE, message: describeUnexpected(status, body) } };
}

/** openapi-fetch reads an empty error body as `''`: that is no body. */
function bodyAsReceived(error: unknown): unknown {
  return error === '' ? undefined : error;
}

/**
 * {@link toResult} for an operation whose declared error statuses are known (what the generated client calls, D122):
 * a declared status returns the body as received as `error` (the generated type is that status's schema); an
 * undeclared one, or a non-JSON body where the spec declares JSON, becomes `ERR_UNEXPECTED_RESPONSE`.
 */
export async function toDeclaredResult<T, E>(
  promise: Promise<{ data?: unknown; error?: unknown; response: Response }>,
  errors: DeclaredErrors,
): Promise<ApiResult<T, E | UnexpectedResponseError>> {
  const { data, error, response } = await promise;
  const status = response.status;
  if (response.ok) return { ok: true, status, data: data as T, response };
  const body = bodyAsReceived(error);
  const declared = declaredError(errors, status);
  const isJson = body !== undefined && typeof body !== 'string';
  if (declared === 'other' || (declared === 'json' && isJson)) return { ok: false, status, error: body as E, response, body };
  return { ok: false, status, error: unexpected(status, body), response, body };
}

/**
 * Error thrown by helpers that cannot return an {@link ApiResult} (pagination, {@link unwrap}). Carries the HTTP
 * status, the Paygate error code and field-level details.
 *
 * @example
 * ```ts
 * try {
 *   for await (const refund of paginate((page) => paygate.refunds.list({ page }))) console.log(refund.refund_id);
 * } catch (err) {
 *   if (err instanceof PaygateApiError && err.status === 429) console.log('rate limited');
 * }
 * ```
 */
export class PaygateApiError<C extends string = string> extends Error {
  override readonly name = 'PaygateApiError';
  readonly status: number;
  readonly code: C | UnexpectedResponseCode;
  readonly details: Record<string, string> | undefined;
  readonly response: Response | undefined;
  /** The error body as received (envelope or whatever the server sent). */
  readonly body: unknown;

  constructor(result: { status: number; error: unknown; response?: Response }) {
    const envelope = isErrorEnvelope(result.error) ? (result.error as ErrorEnvelope<C>) : undefined;
    // Another API's own error schema with a top-level string `code` (and `message`): use them as they are.
    const own = envelope === undefined ? topLevelCode(result.error) : undefined;
    const code = envelope ? envelope.error.code : own ? (own.code as C) : UNEXPECTED_RESPONSE_CODE;
    const message = envelope ? envelope.error.message : (own?.message ?? describeUnexpected(result.status, result.error));
    super(`${code} (HTTP ${result.status}): ${message}`);
    this.status = result.status;
    this.code = code;
    this.details = envelope?.error.details;
    this.response = result.response;
    this.body = result.error;
  }
}

function topLevelCode(value: unknown): { code: string; message: string | undefined } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message } = value as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? { code, message: typeof message === 'string' ? message : undefined } : undefined;
}

/**
 * Return `data` of a successful result or throw {@link PaygateApiError}.
 *
 * @example
 * ```ts
 * const order = unwrap(await paygate.orders.get({ order_id }));
 * ```
 */
export function unwrap<T>(result: ApiResult<T, unknown>): T {
  if (result.ok) return result.data;
  throw new PaygateApiError(result);
}
