/**
 * Step `authenticate`: security from the spec (D120 one authenticator per security scheme). Every operation that
 * declares `security` must be covered by `authenticators` (one per scheme) or `authenticate` (one for all), or the app
 * refuses to start (unless `allowUnauthenticated`, a prototype's choice, logged as an error naming each operation).
 * Runs before any body is read or validated; the rate-limit step runs in the same Express step (rate-limit.ts).
 */
import type { Request } from 'express';
import { HttpError, INVALID_CREDENTIALS, MISSING_CREDENTIALS, RUNTIME_ERROR_CODES } from '../errors.js';
import { coverage, createSchemeGuard, presentsCredentials, type SchemeAuthenticators } from '../security.js';
import type { Logger, OperationRoute, SecuritySchemeInfo } from '../types.js';
import type { CommonAppOptions } from './options.js';

/** How the app authenticates an operation's requests. */
export interface Authentication<TPrincipal> {
  /** Whether the operation is authenticated (it declares security that an authenticator covers). */
  authenticates(operation: OperationRoute): boolean;
  /** The principal of a request; may throw anything (see `refused`). */
  principal(req: Request, operation: OperationRoute): TPrincipal | Promise<TPrincipal>;
  /**
   * What a refusal thrown by `principal` is answered with: the hook's own `HttpError` as it is, anything else 401.
   * Apart from `principal` so that the guard awaits the hook directly (no async wrapper per request, D166).
   */
  refused(error: unknown, req: Request, operation: OperationRoute): HttpError;
}

export function createAuthentication<TPrincipal>(
  operations: readonly OperationRoute[],
  securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>,
  options: Pick<CommonAppOptions<unknown, TPrincipal>, 'authenticate' | 'authenticators' | 'allowUnauthenticated'>,
  logger: Logger,
): Authentication<TPrincipal> {
  const authenticators: SchemeAuthenticators<TPrincipal> = options.authenticators ?? {};
  const uncovered = options.authenticate !== undefined ? [] : coverage(operations, (scheme) => authenticators[scheme] !== undefined);
  if (uncovered.length > 0) {
    const list = uncovered.map((u) => `${u.operationId} (${u.schemes.join(', ')})`).join(', ');
    if (options.allowUnauthenticated !== true) {
      throw new Error(
        `createApp: ${uncovered.length} operation(s) declare security that no authenticator covers: ${list}. Pass \`authenticators\` (one per scheme: ${[...new Set(uncovered.flatMap((u) => u.schemes))].sort().join(', ')}) or \`authenticate\`; \`allowUnauthenticated: true\` serves them without authentication (prototypes only).`,
      );
    }
    logger.error(
      { operations: uncovered.map((u) => u.operationId) },
      `allowUnauthenticated: SERVING ${uncovered.length} OPERATION(S) THAT DECLARE SECURITY WITHOUT AUTHENTICATION: ${list}`,
    );
  }
  const uncoveredIds = new Set(uncovered.map((u) => u.operationId));
  // D219: a request that sent a credential of the operation's schemes and was refused is told so; one that sent none
  // is told they are missing; nothing says which scheme or which part failed.
  const refusal = (req: Request, operation: OperationRoute): HttpError =>
    new HttpError(
      401,
      RUNTIME_ERROR_CODES.auth,
      presentsCredentials(req, operation, securitySchemes) ? INVALID_CREDENTIALS : MISSING_CREDENTIALS,
    );
  const schemeGuard = createSchemeGuard<TPrincipal>(authenticators, securitySchemes, refusal);
  const authenticate = options.authenticate;
  return {
    authenticates: (operation) => operation.security.length > 0 && !uncoveredIds.has(operation.operationId),
    principal:
      authenticate !== undefined
        ? (req, operation) => authenticate({ req, operation, requirements: operation.security, schemes: securitySchemes })
        : schemeGuard,
    refused: (error, req, operation) => (error instanceof HttpError ? error : refusal(req, operation)),
  };
}
