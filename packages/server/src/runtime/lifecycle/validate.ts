/**
 * Step `validate`: the request checked by the validators precompiled from the spec (request-validators.gen.ts, D160;
 * multipart parsed here, with the upload limits), always; and, when asked (`validateResponses`, the default outside
 * production), the handler's response checked by express-openapi-validator.
 */
import type { RequestHandler } from 'express';
import { linewiseMediaTypes } from '../ndjson-lines.js';
import { createRequestValidator } from '../request-validation.js';
import { createResponseValidator } from '../response-validation.js';
import type { Logger, OperationRoute } from '../types.js';
import type { ApiSpec, UploadLimits } from './options.js';

/** Refuses to start without a validator for every operation (the generated file is older than the spec). */
export function checkValidators(spec: ApiSpec): void {
  const missingValidators = spec.operations
    .filter((op) => spec.requestValidators[op.operationId] === undefined)
    .map((op) => op.operationId);
  if (missingValidators.length > 0) {
    throw new Error(`createApp: request-validators.gen.ts has no validators for ${missingValidators.join(', ')} (npm run generate)`);
  }
}

/** D198: a request part whose schema Ajv could not compile is served without validation: said once, naming the operation. */
export function warnNotValidated(spec: ApiSpec, logger: Logger): void {
  for (const operation of spec.operations) {
    const parts = spec.requestValidators[operation.operationId]?.notValidated;
    if (parts !== undefined)
      logger.warn({ operationId: operation.operationId }, `${operation.operationId}: request not validated: ${parts}`);
  }
}

/** The request-validation steps of an operation. `allow`: the methods of its path, for a 405 the validator answers. */
export function validateSteps(
  spec: ApiSpec,
  operation: OperationRoute,
  options: { allow: string; uploadLimits: Required<UploadLimits>; multipartLimitBytes: number },
): RequestHandler[] {
  const linewise = linewiseMediaTypes(spec.apiDocument, operation);
  return createRequestValidator(operation, spec.requestValidators[operation.operationId]!, {
    ...options,
    ...(linewise.size === 0 ? {} : { linewise }),
  });
}

/** The response-validation step of an operation (before its handler: it watches what the handler sends), or none. */
export function validateResponseSteps(
  spec: ApiSpec,
  operation: OperationRoute,
  validateResponses: boolean,
  logger: Logger,
): RequestHandler[] {
  return validateResponses
    ? [
        createResponseValidator(spec.apiDocument, operation, (reason) =>
          logger.warn({ operationId: operation.operationId }, `${operation.operationId}: responses not validated: ${reason}`),
        ),
      ]
    : [];
}
