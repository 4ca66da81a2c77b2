/**
 * @paygate/server: typed Express 5 scaffold for the Paygate API. Implement `Handlers` (generated from the spec) and
 * pass them to `createApp`.
 */
export { createApp } from './app.js';
export {
  createApiApp,
  type ApiSpec,
  consoleLogger,
  RenderedResponse,
  type HandlerCall,
  type HandlerHook,
  type AuthenticateInput,
  type CommonAppOptions,
  type CreateAppOptions,
  type DeclaredErrorResult,
  type ErrorMapper,
  type NotImplementedMode,
  type RateLimitInput,
  type UploadLimits,
} from './runtime/app.js';
export {
  GENERIC_ERROR_CODES,
  problemDetails,
  SpecErrorShapes,
  type ErrorResponse,
  type ErrorSchemaExtension,
  type FieldProblem,
  type RuntimeError,
  type RuntimeErrorKind,
  type UnfillableErrorSchema,
  type NeutrallyFilledErrorSchema,
} from './runtime/error-shapes.js';
export {
  presentsCredentials,
  readCredential,
  type Credential,
  type SchemeAuthenticator,
  type SchemeAuthenticatorInput,
  type SchemeAuthenticators,
} from './runtime/security.js';
export type { OperationRequestValidators, ParameterParse, ParameterRule } from './runtime/request-validation.js';
export {
  ApiError,
  classifyError,
  HttpError,
  HttpErrorWithPage,
  INVALID_CREDENTIALS,
  mapError,
  MISSING_CREDENTIALS,
  fieldName,
  RUNTIME_ERROR_CODES,
  VALIDATION_MESSAGE,
  type ErrorEnvelope,
  type MappedError,
} from './runtime/errors.js';
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
export {
  apiDocument,
  idempotentOperationIds,
  operations,
  securitySchemes,
  type OperationId,
  type SecuritySchemeName,
} from '@paygate/contract';
export type { components, OperationTypes as OperationTypesByOperationId, paths } from '@paygate/contract';
