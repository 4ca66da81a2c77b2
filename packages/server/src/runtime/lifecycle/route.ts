/**
 * Step `route`: one middleware finds the operation of a request and runs its steps (dispatch.ts, find-my-way, D141);
 * paths match exactly as the spec writes them; a path whose percent-encoding does not decode is 400, a known path
 * with another method 405 with `Allow`, anything else 404.
 */
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { bodyAccepted } from '../body-accepted.js';
import { createDispatcher } from '../dispatch.js';
import { HttpError, RUNTIME_ERROR_CODES, VALIDATION_MESSAGE } from '../errors.js';
import { linewiseMediaTypes } from '../ndjson-lines.js';
import {
  compareRoutes,
  type OperationRequestValidators,
  pathParametersAccepted,
  queryParametersAccepted,
  queryParametersFit,
} from '../request-validation.js';
import { pathParameterEnums, requiredQueryParameters, sentPath } from '../route-template.js';
import type { ApiDocument, Logger, OperationRoute } from '../types.js';

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path segment whose percent-encoding does not decode (`/pg/orders/%E0%A4%A`) would make the router throw while
 * matching, before any route knows which parameter it was. Answer 400 naming that parameter of the path template the
 * request matches (or `path` when none does) instead.
 */
export function rejectMalformedPathEncoding(templates: readonly string[]): RequestHandler {
  const split = templates.map((t) => t.split('/'));
  return (req, _res, next) => {
    const raw = req.path.split('/');
    const bad = raw.findIndex((segment) => segment.includes('%') && !decodes(segment));
    if (bad === -1) {
      next();
      return;
    }
    const template = split.find(
      (t) => t.length === raw.length && t.every((seg, i) => seg === raw[i] || (/^\{[^}]+\}$/.test(seg) && (i === bad || decodes(raw[i]!)))),
    );
    const parameter = template?.[bad]?.match(/^\{([^}]+)\}$/)?.[1];
    next(
      new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
        [parameter ?? 'path']: 'contains malformed percent-encoding (each % must start a UTF-8 escape such as %2F)',
      }),
    );
  };
}

/**
 * `Allow` per path: the methods the route table declares on it, in its order (GET, PUT, POST, DELETE, OPTIONS,
 * HEAD, PATCH, TRACE), and the paths ordered for matching (static segments first).
 */
export function allowByPath(operations: readonly OperationRoute[]): { path: string; expressPath: string; allow: string }[] {
  // templates a client cannot tell apart (`/tags/{arn}` and `/tags/{arn}#tagKeys`, `/rides?page={page}`) are one
  // path: one Allow (D410 every path template real specs use is routed)
  const routeOf = (template: string) => sentPath(template).replace(/\{[^}]+\}/g, '{}');
  const byRoute = new Map<string, { paths: string[]; expressPath: string; methods: string[] }>();
  for (const op of operations) {
    let entry = byRoute.get(routeOf(op.path));
    if (entry === undefined) byRoute.set(routeOf(op.path), (entry = { paths: [], expressPath: op.expressPath, methods: [] }));
    if (!entry.paths.includes(op.path)) entry.paths.push(op.path);
    const method = op.method.toUpperCase();
    if (!entry.methods.includes(method)) entry.methods.push(method);
  }
  return [...byRoute.values()]
    .sort((a, b) => compareRoutes(a.expressPath, b.expressPath))
    .flatMap((e) => e.paths.map((path) => ({ path, expressPath: e.expressPath, allow: e.methods.join(', ') })));
}

/** A new Express app whose router matches paths as the spec writes them, and sends no header or ETag of its own. */
export function routedApp(): Express {
  const app = express();
  // Paths are matched exactly as the spec writes them (Express's default ignores a trailing slash and case, so
  // `/pg/orders/{id}/` would reach the handler of `/pg/orders/{id}`): the other spelling is 404 (decision B9). Set
  // before anything touches `app.router`, which reads these settings once when it is created.
  app.enable('strict routing');
  app.enable('case sensitive routing');
  app.disable('x-powered-by');
  // No automatic ETag: Express hashes every body it sends (SHA-1) to answer If-None-Match with 304, a status an API's
  // operations rarely declare; a handler that sets its own ETag still gets its 304 (D141 one dispatch middleware with find-my-way). `before` may re-enable it.
  app.set('etag', false);
  return app;
}

/** An operation and the steps it runs, in order (put together once, at start-up). */
export interface OperationSteps {
  operation: OperationRoute;
  steps: RequestHandler[];
  /**
   * The number of leading steps through which the body is read (the guard, the body parsers); absent when the
   * operation reads none: what the dispatcher runs before choosing among operations only bodies tell apart (D485,
   * "Operations told apart by their bodies dispatched by body schema").
   */
  bodyAt?: number;
}

/**
 * The route step: the dispatcher over every operation's steps. `unmatched`: what a request no operation matches runs
 * before the 404/405 (the body parsers, so that its body is read and counted like any other).
 */
export function routeStep(
  apiDocument: ApiDocument,
  operations: readonly OperationRoute[],
  validators: Readonly<Record<string, OperationRequestValidators>>,
  routes: readonly OperationSteps[],
  unmatched: RequestHandler[],
  logger: Logger,
): RequestHandler {
  return createDispatcher(
    routes.map((route) => {
      const v = validators[route.operation.operationId];
      const acceptsPath = v === undefined ? undefined : pathParametersAccepted(v);
      const required = requiredQueryParameters(apiDocument, route.operation);
      const acceptsQuery = v === undefined ? undefined : queryParametersAccepted(v, route.operation, required);
      const queryFit = v === undefined ? undefined : queryParametersFit(v, route.operation, required);
      // D485: with the operation's own compiled body validators
      const acceptsBody =
        v === undefined || route.bodyAt === undefined ? undefined : bodyAccepted(v, linewiseMediaTypes(apiDocument, route.operation));
      return {
        ...route,
        parameters: v?.parameters,
        pathEnums: pathParameterEnums(apiDocument, route.operation),
        ...(acceptsPath === undefined ? {} : { acceptsPath }),
        ...(acceptsQuery === undefined ? {} : { acceptsQuery }),
        ...(queryFit === undefined ? {} : { queryFit }),
        ...(acceptsBody === undefined ? {} : { acceptsBody }),
      };
    }),
    {
      malformed: rejectMalformedPathEncoding(operations.map((op) => sentPath(op.path))),
      unmatched,
      warn: (operationId, message) => logger.warn({ operationId }, message),
    },
  );
}

/** After the route step and anything `before` mounted: no route answers the request. */
export const notFound = (_req: Request, _res: Response, next: NextFunction): void =>
  next(new HttpError(404, RUNTIME_ERROR_CODES.notFound, 'No such route'));
