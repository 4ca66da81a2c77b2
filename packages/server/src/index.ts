/**
 * @paygate/server: typed Express 5 scaffold for the Paygate API. Implement `Handlers` (generated from the spec) and
 * pass them to `createApp`.
 */
export { createApp } from './app.js';
export {
  createApiApp,
  type ApiSpec,
  type AuthenticateInput,
  type CreateAppOptions,
  type RateLimitInput,
  type UploadLimits,
} from './runtime/app.js';
export type { OperationRequestValidators, ParameterParse, ParameterRule } from './runtime/request-validation.js';
export { ApiError, HttpError, HttpErrorWithPage, mapError, fieldName, RUNTIME_ERROR_CODES, VALIDATION_MESSAGE, type ErrorEnvelope, type MappedError } from './runtime/errors.js';
export type {
  ApiDocument,
  HandlerContext,
  HttpMethod,
  Logger,
  OperationRoute,
  SecurityRequirement,
  SecuritySchemeInfo,
  UploadedFile,
} from './runtime/types.js';
export type * from './generated/handlers.gen.js';
// The contract (generated in @paygate/contract), re-exported for existing `@paygate/server` imports.
export { apiDocument, idempotentOperationIds, operations, securitySchemes, type OperationId } from '@paygate/contract';
export type { components, OperationTypes as OperationTypesByOperationId, paths } from '@paygate/contract';
