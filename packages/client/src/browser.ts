/**
 * @paygate/client for browsers (the `browser` export condition; bundlers pick it): the typed client without the
 * return-URL callback verification, which needs node:crypto and belongs on the merchant's server anyway.
 */
export {
  MAX_RETRY_AFTER_MS,
  PAYGATE_CLIENT_VERSION,
  backoffDelay,
  clientIdentification,
  createHttpTransport,
  createPaygateMiddleware,
  createRetryingFetch,
  createTransport,
  parseRetryAfter,
  type PaygateClientOptions as PaygateTransportOptions,
  type TransportOptions,
} from './runtime/transport.js';
export {
  applyAuth,
  chooseAlternative,
  type AuthConfig,
  type BasicCredentials,
  type CredentialFor,
  type Secret,
  type SecurityRequirement,
  type SecuritySchemeSpec,
  type SecuritySchemes,
} from './runtime/security.js';
export { createCaller, type CallerOptions, type IdempotencyKeySpec, type OperationMeta } from './runtime/facade.js';
export {
  PaygateApiError,
  UNEXPECTED_RESPONSE_CODE,
  declaredError,
  isErrorEnvelope,
  toDeclaredResult,
  toResult,
  unwrap,
  type ApiResult,
  type DeclaredErrors,
  type ErrorEnvelope,
  type OpenApiFetchResponse,
  type PaygateErrorBody,
  type PaygateResult,
  type UnexpectedResponseCode,
  type UnexpectedResponseError,
} from './runtime/result.js';
export {
  DEFAULT_MAX_PAGES,
  PaginationError,
  paginate,
  walkPages,
  type Page,
  type PageQuery,
  type PageShape,
  type PageStrategy,
  type PageTotal,
  type PageValue,
  type PaginateOptions,
  type PaginationErrorReason,
  type PagingOptions,
} from './runtime/paginate.js';
export * from './generated/index.js';
