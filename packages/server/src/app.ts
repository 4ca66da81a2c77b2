import type { Express } from 'express';
import { apiDocument, operations, securitySchemes, type SecuritySchemeName } from '@paygate/contract';
import type { Handlers } from './generated/handlers.gen.js';
import { requestValidators } from './generated/request-validators.gen.js';
import { createApiApp, type CreateAppOptions } from './runtime/app.js';

/**
 * The Express app for the Paygate API: every operation routed to `handlers`, requests validated by the precompiled
 * validators (Paygate's rules: docs/request-validation.md) and, outside production, responses by
 * express-openapi-validator; errors mapped to the error envelope.
 */
export function createApp<TPrincipal = unknown>(options: CreateAppOptions<Handlers<TPrincipal>, TPrincipal, SecuritySchemeName>): Express {
  return createApiApp<Handlers<TPrincipal>, TPrincipal, SecuritySchemeName>(
    { apiDocument, operations, securitySchemes, requestValidators },
    options,
  );
}
