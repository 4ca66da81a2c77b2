/**
 * One dispatch per request (D141): the route table matched once by find-my-way (a maintained radix router, the one
 * Fastify uses) instead of Express's linear walk over one layer per operation, then the operation's own steps, put
 * together at start-up (only the steps the operation needs: no authentication, rate limit, body parsing or multipart
 * machinery on an operation that does not declare it).
 *
 * Matching is exact, as the spec writes its paths (decision B9): case-sensitive, a trailing slash is a different path,
 * no `;` delimiter, no duplicate-slash folding. A declared path with another method answers 405 with `Allow`.
 */
import findMyWay from 'find-my-way';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { methodNotAllowed, RequestRejection } from './request-validation.js';
import type { OperationRoute } from './types.js';

/** One declared path: its operations by method and the `Allow` header of its 405. */
interface PathEntry {
  readonly byMethod: ReadonlyMap<string, Dispatched>;
  readonly allow: string;
  /** The spec's parameter names, in template order (the router's are positional: `p0`, `p1`...). */
  readonly names: readonly string[];
}

interface Dispatched {
  readonly operation: OperationRoute;
  readonly steps: readonly RequestHandler[];
}

/**
 * A template in find-my-way's syntax: parameters renamed positionally (a spec name such as `thing-id` is not a
 * find-my-way parameter name) and `:` in static text escaped.
 */
function routerPath(template: string): { path: string; names: string[] } {
  const names: string[] = [];
  let path = '';
  let last = 0;
  for (const match of template.matchAll(/\{([^}]+)\}/g)) {
    path += template.slice(last, match.index).replaceAll(':', '::');
    path += `:p${names.length}`;
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  path += template.slice(last).replaceAll(':', '::');
  return { path, names };
}

/** 400 for a path whose repeated parameter (`/accounts/{id}/maps/{map}/accounts/{id}`) has two values (D200). */
function repeatedParameterMismatch(name: string): RequestRejection {
  const message = 'must have the same value at every place of the path';
  return new RequestRejection(400, `path parameter ${name} ${message}`, [{ path: `/params/${name}`, message }]);
}

/** Runs `steps` in order; an error (or the end of the steps) goes to `done`. */
function runSteps(steps: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const step = (error?: unknown): void => {
    if (error !== undefined && error !== null) {
      done(error);
      return;
    }
    const next = steps[index++];
    if (next === undefined) {
      done();
      return;
    }
    void next(req, res, step);
  };
  step();
}

export interface DispatchOptions {
  /** Called for a path no operation declares when it holds malformed percent-encoding (answers 400). */
  malformed?: RequestHandler;
  /**
   * Run before the 405 of an undeclared method and before an unknown path goes on to 404: the body parsers, so that a
   * malformed or oversize body is answered as on a declared operation (400 / 413), as Express's routing did.
   */
  unmatched?: readonly RequestHandler[];
}

/**
 * The single middleware: finds the operation of the request's path and method, sets `req.params` (decoded, under the
 * spec's names) and `res.locals.operation`, and runs the operation's steps. Unmatched paths go to `next()` (404 after
 * the app's own routes); a declared path with another method is 405.
 */
export function createDispatcher(
  routes: readonly { operation: OperationRoute; steps: readonly RequestHandler[] }[],
  options: DispatchOptions = {},
): RequestHandler {
  // why 64 KiB: find-my-way refuses a longer parameter (404); Node's header limit bounds the URL well before it, and
  // a parameter too long for its schema is the validator's 400, as it was under Express's router
  const router = findMyWay({ caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 64 * 1024 });
  const byPath = new Map<string, { byMethod: Map<string, Dispatched>; methods: string[] }>();
  for (const route of routes) {
    let entry = byPath.get(route.operation.path);
    if (entry === undefined) byPath.set(route.operation.path, (entry = { byMethod: new Map(), methods: [] }));
    const method = route.operation.method.toUpperCase();
    entry.byMethod.set(method, { operation: route.operation, steps: route.steps });
    entry.methods.push(method);
  }
  // Every path registered once (under GET, a stand-in: the method is looked up in the entry, so that a path declared
  // with other methods answers 405 instead of falling through).
  for (const [template, entry] of byPath) {
    const { path, names } = routerPath(template);
    const store: PathEntry = { byMethod: entry.byMethod, allow: entry.methods.join(', '), names };
    router.on('GET', path, () => undefined, store);
  }

  const unmatched = options.unmatched ?? [];
  return (req, res, next) => {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const matched = router.find('GET', path);
    // find-my-way matches an empty last parameter (`/items/` for `/items/{id}`); a path parameter is never empty
    // (Express's routing did not match it either): another path, so 404
    let found = matched;
    if (matched !== null) {
      for (const key in matched.params) {
        if (matched.params[key] === '') {
          found = null;
          break;
        }
      }
    }
    if (found === null) {
      if (options.malformed !== undefined && path.includes('%'))
        options.malformed(req, res, (error?: unknown) => (error === undefined ? runSteps(unmatched, req, res, next) : next(error)));
      else runSteps(unmatched, req, res, next);
      return;
    }
    const entry = found.store as PathEntry;
    const target = entry.byMethod.get(req.method);
    if (target === undefined) {
      runSteps(unmatched, req, res, (error?: unknown) => next(error ?? methodNotAllowed(req, entry.allow)));
      return;
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < entry.names.length; i++) {
      const name = entry.names[i]!;
      const value = found.params[`p${i}`]!;
      // D200: a name the template repeats is one parameter: every place of the path must carry the same value
      if (params[name] !== undefined && params[name] !== value) {
        next(repeatedParameterMismatch(name));
        return;
      }
      params[name] = value;
    }
    req.params = params;
    res.locals.operation = target.operation;
    runSteps(target.steps, req, res, next);
  };
}
