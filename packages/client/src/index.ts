/**
 * @paygate/client: typed client for the Paygate API. The hand-written runtime (transport with auth headers,
 * idempotency keys and retries; results; pagination; return-URL callback verification) plus the generated
 * `createPaygateClient`.
 *
 * @example
 * ```ts
 * import { createPaygateClient, paginate, verifyCallback } from '@paygate/client';
 *
 * const paygate = createPaygateClient({ baseUrl: process.env.PAYGATE_URL!, clientId: '...', clientSecret: '...' });
 * ```
 * @packageDocumentation
 */
export {
  MAX_RETRY_AFTER_MS,
  PAYGATE_CLIENT_VERSION,
  backoffDelay,
  createPaygateMiddleware,
  createRetryingFetch,
  createTransport,
  parseRetryAfter,
  type PaygateClientOptions,
} from './runtime/transport.js';
export {
  PaygateApiError,
  UNEXPECTED_RESPONSE_CODE,
  isErrorEnvelope,
  toResult,
  unwrap,
  type ApiResult,
  type ErrorEnvelope,
  type OpenApiFetchResponse,
  type PaygateErrorBody,
  type PaygateResult,
  type UnexpectedResponseCode,
  type UnexpectedResponseError,
} from './runtime/result.js';
export { paginate, type Page, type PaginateOptions } from './runtime/paginate.js';
export {
  CALLBACK_HASH_FIELDS,
  computeCallbackHash,
  verifyCallback,
  type CallbackFields,
  type CallbackHashField,
} from './runtime/callback.js';
export * from './generated/index.js';
