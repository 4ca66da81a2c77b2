/**
 * Step `rateLimit`: the app's `rateLimit` hook, after authentication (it gets the principal) and before any body is
 * read; it throws `HttpError(429, ...)` to refuse and may set headers. Authentication and the rate limit are ONE
 * Express step per operation (the guard), and no step at all for an operation that needs neither: the dispatcher sets
 * `res.locals.operation`, and `ctx.principal` is then undefined.
 */
import type { RequestHandler } from 'express';
import type { OperationRoute } from '../types.js';
import type { Authentication } from './authenticate.js';
import type { CommonAppOptions } from './options.js';

/** The guard of an operation (authenticate, then rate limit), or undefined when it needs neither. */
export function guardStep<TPrincipal>(
  operation: OperationRoute,
  authentication: Authentication<TPrincipal>,
  rateLimit: CommonAppOptions<unknown, TPrincipal>['rateLimit'],
): RequestHandler | undefined {
  const authenticates = authentication.authenticates(operation);
  if (!authenticates && rateLimit === undefined) return undefined;
  return async (req, res, next) => {
    try {
      let principal = undefined as TPrincipal;
      res.locals.operation = operation;
      if (authenticates) {
        try {
          principal = await authentication.principal(req, operation);
        } catch (error) {
          throw authentication.refused(error, req, operation);
        }
      }
      res.locals.principal = principal;
      await rateLimit?.({ req, res, operation, principal });
      next();
    } catch (error) {
      next(error);
    }
  };
}
