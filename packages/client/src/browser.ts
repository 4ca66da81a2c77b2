/**
 * @paygate/client for browsers (the `browser` export condition; bundlers pick it): the typed client without the
 * return-URL callback verification, which needs node:crypto and belongs on the merchant's server anyway.
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
export * from './generated/index.js';
