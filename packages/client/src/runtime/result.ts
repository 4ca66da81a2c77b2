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
  | { ok: false; status: number; error: E; response: Response };

/** `ApiResult` whose error is the envelope with codes `C`, or the synthesised unexpected-response envelope. */
export type PaygateResult<T, C extends string = string> = ApiResult<T, ErrorEnvelope<C> | UnexpectedResponseError>;

/** The shape openapi-fetch resolves to (`FetchResponse`). */
export type OpenApiFetchResponse<T, E> =
  | { data: T; error?: never; response: Response }
  | { data?: never; error: E; response: Response };

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
  return `Unexpected HTTP ${status} response without a Paygate error envelope${snippet ? `: ${snippet}` : ''}`;
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
  if (isErrorEnvelope(error)) return { ok: false, status, error: error as ResponseErrorEnvelope<R>, response };
  const synthesised: UnexpectedResponseError = {
    success: false,
    error: { code: UNEXPECTED_RESPONSE_CODE, message: describeUnexpected(status, error) },
  };
  return { ok: false, status, error: synthesised, response };
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
    const code = envelope ? envelope.error.code : UNEXPECTED_RESPONSE_CODE;
    const message = envelope ? envelope.error.message : describeUnexpected(result.status, result.error);
    super(`${code} (HTTP ${result.status}): ${message}`);
    this.status = result.status;
    this.code = code;
    this.details = envelope?.error.details;
    this.response = result.response;
    this.body = result.error;
  }
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
