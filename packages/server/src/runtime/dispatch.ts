/**
 * One dispatch per request (D141 one dispatch middleware with find-my-way): the route table matched once by find-my-way (a maintained radix router, the one
 * Fastify uses) instead of Express's linear walk over one layer per operation, then the operation's own steps, put
 * together at start-up (only the steps the operation needs: no authentication, rate limit, body parsing or multipart
 * machinery on an operation that does not declare it).
 *
 * Matching is exact, as the spec writes its paths (decision B9): case-sensitive, a trailing slash is a different path,
 * no `;` delimiter, no duplicate-slash folding. A declared path with another method answers 405 with `Allow`; a
 * literal path declared with some methods leaves the others to a template that matches it.
 *
 * Every path template real specs use is routed (D410, route-template.ts): text around a parameter and several
 * parameters in a segment (Google's `{name}:cancel`), a query string written into the template, and templates that
 * differ only after `#` (AWS), which are one route choosing its operation by the query or header the fragment names.
 */
import findMyWay from 'find-my-way';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chosenByBody, toldApartByBody } from './body-dispatch.js';
import { methodNotAllowed, RequestRejection, selectMediaType } from './request-validation.js';
import { bindKeyParameters, meets, parseRouteTemplate, type RouteCondition, type RouteTemplate } from './route-template.js';
import type { OperationRoute } from './types.js';

/** One route (the part of a template a client sends): its operations by method and its methods for a 405's `Allow`. */
interface PathEntry {
  /** Per method, the templates of this route, the most specific (most conditions) first. */
  readonly byMethod: ReadonlyMap<string, readonly Candidate[]>;
  /** Its methods in declaration order. */
  readonly methods: readonly string[];
  /** find-my-way's path of the route. */
  readonly routerPath: string;
}

/** An operation under its route: its steps and how its template reads a request. */
interface Candidate extends RouteTemplate {
  readonly operation: OperationRoute;
  readonly steps: readonly RequestHandler[];
  /** The query and header parameters the operation declares (header names lower-cased). */
  readonly declared: { readonly query: ReadonlySet<string>; readonly header: ReadonlySet<string> };
  /** Whether the operation's path parameter schemas accept these values; absent: it takes any. */
  readonly acceptsPath?: (params: Record<string, string>) => boolean;
  /** Whether the operation takes the request's query keys; absent: any. */
  readonly acceptsQuery?: (query: URLSearchParams) => boolean;
  /** How many query keys sent it does not know and how many it requires are missing; absent: not counted. */
  readonly queryFit?: (query: URLSearchParams) => QueryFit;
  /** Its steps through which the body is read (guard, body parsers), and the rest; absent: it reads no body. */
  readonly head?: readonly RequestHandler[];
  readonly tail?: readonly RequestHandler[];
  readonly bodyAt?: number;
  /** Whether its body schema accepts the request's parsed body; absent: it cannot tell. */
  readonly acceptsBody?: (req: Request) => boolean;
  /**
   * The other templates of its route and method that the same requests reach and only a body tells apart (D485,
   * "Operations told apart by their bodies dispatched by body schema"): filled at start-up.
   */
  readonly rivals: Candidate[];
}

/** What the dispatcher reads of a request's query keys against an operation's parameters. */
export interface QueryFit {
  /** Keys sent that the operation does not know. */
  readonly unknown: number;
  /** Required keys not sent. */
  readonly missing: number;
}

/** The query keys a key parameter (`?{search}=1`) cannot be: the declared query parameters and the keys the template names. */
function keyParameterKnown(target: Candidate): ReadonlySet<string> {
  return new Set([...target.declared.query, ...target.conditions.filter((c) => c.in === 'query').map((c) => c.name)]);
}

/**
 * Whether the request names another template of its route by a value none has (`?operation=bogus` beside
 * `#operation=restore`): a key another template chooses by value, sent, that the chosen one neither reads nor
 * declares. Such a request is not the chosen operation's (it would answer an unrelated 415 or unknown parameter).
 */
function namesAnother(target: Candidate, candidates: readonly Candidate[], query: URLSearchParams, req: Request): boolean {
  for (const other of candidates) {
    if (other === target) continue;
    for (const c of other.conditions) {
      if (c.value === undefined || target.conditions.some((t) => t.in === c.in && t.name === c.name)) continue;
      const sent = c.in === 'header' ? req.headers[c.name] !== undefined : query.has(c.name);
      if (sent && !(c.in === 'header' ? target.declared.header : target.declared.query).has(c.name)) return true;
    }
  }
  return false;
}

/** 400 for a path whose repeated parameter (`/accounts/{id}/maps/{map}/accounts/{id}`) has two values (D200 a repeated path parameter is one value). */
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

/**
 * 400 when several templates share the request's route and method and the request meets none's conditions (D410 every path template real specs use is routed):
 * per parameter the templates read, the values that choose one (`must be one of: Svc.A, Svc.B`) or that it must be sent.
 * The parameters the request sent no value of any template for come first: the message names the first, the one to fix
 * (D467 validation answers name the field in the best string the schema offers).
 */
function noTemplateChosen(
  method: string,
  candidates: readonly Candidate[],
  query: URLSearchParams,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): RequestRejection {
  const byField = new Map<string, { values: string[]; present: boolean; met: boolean }>();
  for (const candidate of candidates)
    for (const c of candidate.conditions) {
      const path = `/${c.in === 'header' ? 'headers' : 'query'}/${c.name}`;
      const field = byField.get(path) ?? { values: [], present: false, met: false };
      byField.set(path, field);
      field.met ||= meets(c, query, headers);
      if (c.value === undefined) field.present = true;
      else if (!field.values.includes(c.value)) field.values.push(c.value);
    }
  const fields = [...byField].sort(([, a], [, b]) => Number(a.met) - Number(b.met));
  const errors = fields.map(([path, field]) => ({
    path,
    message:
      field.present || field.values.length === 0 ? 'is required to choose the operation' : `must be one of: ${field.values.join(', ')}`,
  }));
  const ids = candidates.map((c) => c.operation.operationId).join(', ');
  return new RequestRejection(400, `the request does not say which operation of ${method} it is for (${ids})`, errors);
}

/** Two conditions lists that choose the same requests (same conditions in any order). */
const sameConditions = (a: readonly RouteCondition[], b: readonly RouteCondition[]): boolean => {
  const key = (c: RouteCondition) => `${c.in}\u0000${c.name}\u0000${c.value ?? ''}`;
  const set = new Set(a.map(key));
  return a.length === b.length && b.every((c) => set.has(key(c)));
};

/** Two operations whose request bodies tell them apart: one has a body and the other none, or no media type in common. */
const distinctBodies = (a: OperationRoute, b: OperationRoute): boolean => {
  const [x, y] = [a.requestMediaTypes, b.requestMediaTypes];
  if (x.length === 0 || y.length === 0) return x.length !== y.length;
  return !x.some((m) => y.includes(m));
};

/**
 * Among templates the conditions do not tell apart (Azure's `#overload=url` and `#overload=stream`, labels beside the
 * plain template), the one whose request body the request carries: whose media types take its Content-Type, or the
 * one without a body for a request without one. Undefined when none does (the first one answers, as before).
 */
function byBody(tied: readonly Candidate[], req: Request): Candidate | undefined {
  const type = req.headers['content-type'];
  if (type === undefined) return tied.find((c) => c.operation.requestMediaTypes.length === 0);
  return tied.find((c) => selectMediaType(c.operation.requestMediaTypes, type) !== undefined);
}

/** The spec's names bound to the router's positional values (and the template's query part), or why they cannot be. */
function bindParams(
  target: Candidate,
  found: Readonly<Record<string, string | undefined>>,
  query: URLSearchParams | undefined,
): Record<string, string> | RequestRejection {
  const params: Record<string, string> = {};
  for (let i = 0; i < target.names.length; i++) {
    const name = target.names[i]!;
    const value = found[`p${i}`]!;
    // D200: a name the template repeats is one parameter: every place of the path must carry the same value
    if (params[name] !== undefined && params[name] !== value) return repeatedParameterMismatch(name);
    params[name] = value;
  }
  // a template parameter written in the template's query part (`?city={city}`) is read from its query key (D410 every path template real specs use is routed)
  for (const binding of target.queryBindings) {
    const value = query!.get(binding.key);
    if (value !== null) params[binding.name] = value;
  }
  // D457 a template parameter written as a query key (`?{search}=1`): the key sent with the term's value
  if (target.keyBindings !== undefined)
    for (const [name, key] of bindKeyParameters(target.keyBindings, query!.entries(), keyParameterKnown(target))) params[name] ??= key;
  return params;
}

/**
 * Paths matched exactly as the spec writes them. Why 64 KiB: find-my-way refuses a longer parameter (404); Node's
 * header limit bounds the URL well before it, and a parameter too long for its schema is the validator's 400, as it
 * was under Express's router.
 */
const ROUTER_OPTIONS = { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 64 * 1024 };

/** A segment of a find-my-way path holding a parameter (`::` is an escaped colon). */
const hasParameter = (segment: string): boolean => segment.replaceAll('::', '').includes(':');

/** Whether two find-my-way paths can match the same request path: as many segments, each equal or a parameter in one. */
function mayOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i] || hasParameter(segment) || hasParameter(b[i]!));
}

/** Whether find-my-way matched an empty parameter (`/items/` for `/items/{id}`): never a path parameter's value. */
function emptyParameter(params: Readonly<Record<string, string | undefined>>): boolean {
  for (const key in params) if (params[key] === '') return true;
  return false;
}

/** Another template of the request's path (this route's or an overlapping one's) whose conditions and parameters accept the request. */
type AcceptingAlternative = (
  path: string,
  entry: PathEntry,
  routerParams: Readonly<Record<string, string | undefined>>,
  current: Candidate,
  req: Request,
  search: string,
) => { target: Candidate; params: Record<string, string> } | undefined;

/**
 * D469 a path routed to the template whose parameters accept it: for the routes registered (`stores`), whether a
 * request routed to a template may belong to another, and that other template. The routes a request path may also
 * match are found when a request first needs them (a chosen template refused its values), each with a router of its own.
 */
function alternativesOf(stores: readonly PathEntry[]): {
  hasAlternative: (entry: PathEntry, target: Candidate, method: string) => boolean;
  acceptingAlternative: AcceptingAlternative;
} {
  const overlapping = new Map<string, readonly PathEntry[]>();
  // one router per route, shared by every route it overlaps
  const routers = new Map<PathEntry, ReturnType<typeof findMyWay>>();
  const routerOf = (store: PathEntry) => {
    let router = routers.get(store);
    if (router === undefined) {
      router = findMyWay(ROUTER_OPTIONS);
      router.on('GET', store.routerPath, () => undefined);
      routers.set(store, router);
    }
    return router;
  };
  const overlapsOf = (entry: PathEntry) => {
    let found = overlapping.get(entry.routerPath);
    if (found === undefined) {
      const segments = entry.routerPath.split('/');
      found = stores.filter((other) => other !== entry && mayOverlap(segments, other.routerPath.split('/')));
      overlapping.set(entry.routerPath, found);
    }
    return found;
  };
  /** Whether a request routed to `target` may belong to another template (asked only then: no check costs the others). */
  const alternatives = new WeakMap<Candidate, boolean>();
  const hasAlternative = (entry: PathEntry, target: Candidate, method: string): boolean => {
    let known = alternatives.get(target);
    if (known === undefined) {
      known = (entry.byMethod.get(method)?.length ?? 0) > 1 || overlapsOf(entry).some((store) => store.byMethod.has(method));
      alternatives.set(target, known);
    }
    return known;
  };
  /** Another template the request path matches whose conditions it meets and whose path and query parameters accept it. */
  const acceptingAlternative: AcceptingAlternative = (path, entry, routerParams, current, req, search) => {
    const query = new URLSearchParams(search);
    const routes = [{ store: entry, params: routerParams }];
    for (const store of overlapsOf(entry)) {
      if (!store.byMethod.has(req.method)) continue;
      const matched = routerOf(store).find('GET', path);
      if (matched !== null && !emptyParameter(matched.params)) routes.push({ store, params: matched.params });
    }
    for (const { store, params: positional } of routes) {
      const candidates = store.byMethod.get(req.method) ?? [];
      for (const candidate of candidates) {
        if (candidate === current || !candidate.conditions.every((condition) => meets(condition, query, req.headers))) continue;
        if (namesAnother(candidate, candidates, query, req)) continue;
        if (candidate.acceptsQuery !== undefined && !candidate.acceptsQuery(query)) continue;
        const params = bindParams(candidate, positional, query);
        if (params instanceof RequestRejection || (candidate.acceptsPath !== undefined && !candidate.acceptsPath(params))) continue;
        return { target: candidate, params };
      }
    }
    return undefined;
  };
  return { hasAlternative, acceptingAlternative };
}

export interface DispatchOptions {
  /** Called for a path no operation declares when it holds malformed percent-encoding (answers 400). */
  malformed?: RequestHandler;
  /**
   * Run before the 405 of an undeclared method and before an unknown path goes on to 404: the body parsers, so that a
   * malformed or oversize body is answered as on a declared operation (400 / 413), as Express's routing did.
   */
  unmatched?: readonly RequestHandler[];
  /** Told once at start-up about an operation no request can reach (its template chooses nothing another's does not). */
  warn?: (operationId: string, message: string) => void;
}

/** A route's operation: its steps and the parameters it declares (to tell a fragment's parameters from its labels). */
export interface DispatchRoute {
  readonly operation: OperationRoute;
  readonly steps: readonly RequestHandler[];
  /** Declared query and header parameters (header names any case); absent: none. */
  readonly parameters?: readonly { readonly name: string; readonly in: string }[];
  /** The string values path parameters' schemas enumerate (a parameter sharing its segment matches them). */
  readonly pathEnums?: ReadonlyMap<string, readonly string[]>;
  /**
   * Whether the operation's path parameter schemas accept the values of a request (their names as the spec writes
   * them): of the templates a path matches, the first whose parameters accept it is chosen (D469 a path routed to the
   * template whose parameters accept it). Absent: any values.
   */
  readonly acceptsPath?: (params: Record<string, string>) => boolean;
  /**
   * Whether the operation takes the request's query keys (every key declared, every required one sent): of the
   * templates of one route and method whose conditions a request meets, the first that takes them is chosen (D469 a path routed to the template whose parameters accept it).
   * Absent: any keys.
   */
  readonly acceptsQuery?: (query: URLSearchParams) => boolean;
  /**
   * The query keys sent that the operation does not know and its required ones missing: when no template takes a
   * request's keys, the one that knows most of them (all its required ones sent) is chosen, so that its validation
   * names the key no template knows (D485, "Operations told apart by their bodies dispatched by body schema"). Absent:
   * not counted.
   */
  readonly queryFit?: (query: URLSearchParams) => QueryFit;
  /** The number of its steps through which its body is read (its guard and the body parsers); absent: it reads none. */
  readonly bodyAt?: number;
  /**
   * Whether its body schema accepts the request's parsed body (its compiled validators): of templates that only
   * bodies tell apart, the first that accepts the body is chosen (D485, "Operations told apart by their bodies
   * dispatched by body schema"). Absent: it cannot tell.
   */
  readonly acceptsBody?: (req: Request) => boolean;
}

/**
 * The single middleware: finds the operation of the request's path and method, sets `req.params` (decoded, under the
 * spec's names) and `res.locals.operation`, and runs the operation's steps. Unmatched paths go to `next()` (404 after
 * the app's own routes); a declared path with another method is 405.
 */
export function createDispatcher(routes: readonly DispatchRoute[], options: DispatchOptions = {}): RequestHandler {
  const router = findMyWay(ROUTER_OPTIONS);
  const byPath = new Map<string, { byMethod: Map<string, Candidate[]>; methods: string[] }>();
  for (const route of routes) {
    const parameters = route.parameters ?? [];
    const declared = {
      query: new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name)),
      header: new Set([
        ...parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
        ...route.operation.headerParameters.map((h) => h.toLowerCase()),
      ]),
    };
    const template = parseRouteTemplate(route.operation.path, {
      ...declared,
      ...(route.pathEnums === undefined ? {} : { pathEnums: route.pathEnums }),
    });
    let entry = byPath.get(template.routerPath);
    if (entry === undefined) byPath.set(template.routerPath, (entry = { byMethod: new Map(), methods: [] }));
    const method = route.operation.method.toUpperCase();
    const candidates = entry.byMethod.get(method) ?? [];
    if (candidates.length === 0) {
      entry.byMethod.set(method, candidates);
      entry.methods.push(method);
    }
    // a template whose path parameters are validated leaves to the next one the values it refuses (D469 a path routed to
    // the template whose parameters accept it: `/attachments/{AttachmentID}` uuid beside `/attachments/{FileName}`)
    const shadowing = candidates.find(
      (c) =>
        c.acceptsPath === undefined &&
        c.acceptsQuery === undefined &&
        sameConditions(c.conditions, template.conditions) &&
        !distinctBodies(c.operation, route.operation) &&
        !toldApartByBody(c, route),
    );
    if (shadowing !== undefined)
      options.warn?.(
        route.operation.operationId,
        `${route.operation.operationId} (${method} ${route.operation.path}) is never reached: ${shadowing.operation.operationId} (${shadowing.operation.path}) answers every request it would`,
      );
    candidates.push({
      ...template,
      declared,
      operation: route.operation,
      steps: route.steps,
      ...(route.acceptsPath === undefined ? {} : { acceptsPath: route.acceptsPath }),
      ...(route.acceptsQuery === undefined ? {} : { acceptsQuery: route.acceptsQuery }),
      ...(route.queryFit === undefined ? {} : { queryFit: route.queryFit }),
      ...(route.bodyAt === undefined || route.acceptsBody === undefined
        ? {}
        : {
            bodyAt: route.bodyAt,
            head: route.steps.slice(0, route.bodyAt),
            tail: route.steps.slice(route.bodyAt),
            acceptsBody: route.acceptsBody,
          }),
      rivals: [],
    });
  }
  const stores: PathEntry[] = [];
  // Every route registered under each of its methods: a literal path declared with one method does not hide a
  // template declared with another (GitLab's `PUT /services/asana` beside `GET /services/{service_slug}`: a GET of
  // `/services/asana` is the template's, not a 405).
  const methods: string[] = [];
  for (const [path, entry] of byPath) {
    // the most specific template first; equal ones in declaration order (sort is stable)
    for (const candidates of entry.byMethod.values()) {
      candidates.sort((a, b) => b.conditions.length - a.conditions.length);
      // the templates the same requests reach that only bodies tell apart (D485, "Operations told apart by their bodies
      // dispatched by body schema")
      for (const c of candidates)
        c.rivals.push(...candidates.filter((o) => o !== c && sameConditions(o.conditions, c.conditions) && toldApartByBody(c, o)));
    }
    const store: PathEntry = { byMethod: entry.byMethod, methods: entry.methods, routerPath: path };
    stores.push(store);
    try {
      for (const method of entry.methods) {
        router.on(method as findMyWay.HTTPMethod, path, () => undefined, store);
        if (!methods.includes(method)) methods.push(method);
      }
    } catch (error) {
      const templates = [...entry.byMethod.values()].flat().map((c) => c.operation.path);
      throw new Error(
        `createApp: cannot route ${[...new Set(templates)].join(', ')} (${(error as Error).message}); rename the path in the spec or report it with this message`,
      );
    }
  }

  const { hasAlternative, acceptingAlternative } = alternativesOf(stores);
  const lookup = (method: string, path: string) => {
    const matched = router.find(method as findMyWay.HTTPMethod, path);
    // find-my-way matches an empty last parameter (`/items/` for `/items/{id}`); a path parameter is never empty
    // (Express's routing did not match it either): another path, so 404
    return matched === null || emptyParameter(matched.params) ? null : matched;
  };
  /** The methods some route of `path` declares (each route's in its declaration order), for a 405's `Allow`. */
  const allowed = (path: string): string[] => {
    const reached = new Map<PathEntry, Set<string>>();
    for (const method of methods) {
      const entry = lookup(method, path)?.store as PathEntry | undefined;
      if (entry !== undefined) reached.set(entry, (reached.get(entry) ?? new Set()).add(method));
    }
    return [...reached].flatMap(([entry, methodsOf]) => entry.methods.filter((m) => methodsOf.has(m)));
  };

  const unmatched = options.unmatched ?? [];
  return (req, res, next) => {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const found = methods.includes(req.method) ? lookup(req.method, path) : null;
    if (found === null) {
      const allow = allowed(path);
      if (allow.length > 0) runSteps(unmatched, req, res, (error?: unknown) => next(error ?? methodNotAllowed(req, allow.join(', '))));
      else if (options.malformed !== undefined && path.includes('%'))
        options.malformed(req, res, (error?: unknown) => (error === undefined ? runSteps(unmatched, req, res, next) : next(error)));
      else runSteps(unmatched, req, res, next);
      return;
    }
    const entry = found.store as PathEntry;
    const candidates = entry.byMethod.get(req.method)!;
    let target: Candidate | undefined = candidates[0]!;
    // the query is parsed only for a route whose templates read it (no route of a spec without such templates)
    const query =
      candidates.length > 1 || target.queryBindings.length > 0 || target.keyBindings !== undefined
        ? new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
        : undefined;
    // several templates on this route and method (AWS fragments, query strings in templates): the first whose
    // conditions the request meets; one alone is chosen whatever is sent (its own validation answers a missing one)
    if (candidates.length > 1) {
      const met = candidates.filter((c) => c.conditions.every((condition) => meets(condition, query!, req.headers)));
      const first = met[0];
      const tied = first === undefined ? [] : met.filter((c) => sameConditions(c.conditions, first.conditions));
      target = tied.length > 1 ? (byBody(tied, req) ?? first) : first;
      if (target === undefined || namesAnother(target, candidates, query!, req)) {
        res.locals.operation = candidates[0]!.operation;
        next(noTemplateChosen(req.method, candidates, query!, req.headers));
        return;
      }
    }
    let params = bindParams(target, found.params, query);
    if (params instanceof RequestRejection) {
      next(params);
      return;
    }
    // D469 a path routed to the template whose parameters accept it: values the chosen template's path parameters
    // refuse go to another template of the path that accepts them (`/genres/{id}` uuid beside `/genres/{name}`;
    // `/zones/count` is `/{zone_type}/count` when `/zones/{zone_id}` wants a uuid); none: the
    // chosen one, whose validation answers 400; and of templates of one route and method that nothing else tells apart: the first that takes the query keys sent
    // (`/v1/{name}` listing with a required `filter` beside getting with `projectId`)
    const queryRefused = candidates.length > 1 && target.acceptsQuery !== undefined && !target.acceptsQuery(query!);
    const refused =
      (target.acceptsPath !== undefined && hasAlternative(entry, target, req.method) && !target.acceptsPath(params)) || queryRefused;
    if (refused) {
      const other = acceptingAlternative(path, entry, found.params, target, req, q === -1 ? '' : url.slice(q + 1));
      if (other !== undefined) ({ target, params } = other);
      else if (queryRefused) {
        // no template takes every key sent: the one that knows most of them, so that its validation names the one none
        // knows (D485, "Operations told apart by their bodies dispatched by body schema")
        const closest = closestByQuery(target, candidates, query!, req);
        const bound = closest === undefined ? undefined : bindParams(closest, found.params, query);
        if (closest !== undefined && bound !== undefined && !(bound instanceof RequestRejection))
          if (closest.acceptsPath === undefined || closest.acceptsPath(bound)) [target, params] = [closest, bound];
      }
    }
    req.params = params;
    res.locals.operation = target.operation;
    const contenders =
      target.rivals.length === 0 || query === undefined ? undefined : bodyContenders(target, params, candidates, found.params, query, req);
    if (contenders === undefined) runSteps(target.steps, req, res, next);
    else runChosenByBody(contenders, req, res, next);
  };
}

/**
 * D485, "Operations told apart by their bodies dispatched by body schema": the body is read by the first contender's
 * steps (its guard, the body parsers), then the first whose body schema accepts it runs the rest of its own steps;
 * none: the first, whose validation names its fields.
 */
function runChosenByBody(contenders: [BodyContenderOf, ...BodyContenderOf[]], req: Request, res: Response, next: NextFunction): void {
  const first = contenders[0];
  runSteps(first.target.head!, req, res, (error?: unknown) => {
    if (error !== undefined && error !== null) {
      next(error);
      return;
    }
    const chosen = chosenByBody(contenders, req);
    if (chosen !== first) {
      req.params = chosen.params;
      res.locals.operation = chosen.target.operation;
    }
    runSteps(chosen.target.tail!, req, res, next);
  });
}

/**
 * The templates a request reaches that only its body tells apart (D485, "Operations told apart by their bodies
 * dispatched by body schema"), the dispatched one first, each with its parameters: those of its route and method
 * whose conditions, media type, path and query parameters take the request as the dispatched one's do. Undefined
 * when there is no other (or no body to read).
 */
function bodyContenders(
  target: Candidate,
  params: Record<string, string>,
  candidates: readonly Candidate[],
  positional: Readonly<Record<string, string | undefined>>,
  query: URLSearchParams,
  req: Request,
): [BodyContenderOf, ...BodyContenderOf[]] | undefined {
  const type = req.headers['content-type'];
  if (type === undefined || !candidates.includes(target) || selectMediaType(target.operation.requestMediaTypes, type) === undefined)
    return undefined;
  const out: [BodyContenderOf, ...BodyContenderOf[]] = [{ target, params, acceptsBody: target.acceptsBody! }];
  for (const rival of target.rivals) {
    if (selectMediaType(rival.operation.requestMediaTypes, type) === undefined) continue;
    if (namesAnother(rival, candidates, query, req) || (rival.acceptsQuery !== undefined && !rival.acceptsQuery(query))) continue;
    const bound = bindParams(rival, positional, query);
    if (bound instanceof RequestRejection || (rival.acceptsPath !== undefined && !rival.acceptsPath(bound))) continue;
    out.push({ target: rival, params: bound, acceptsBody: rival.acceptsBody! });
  }
  return out.length > 1 ? out : undefined;
}

/** A template the body choice may hand a request to, with the parameters it binds. */
interface BodyContenderOf {
  readonly target: Candidate;
  readonly params: Record<string, string>;
  readonly acceptsBody: (req: Request) => boolean;
}

/**
 * When no template of the route takes every query key sent (D485, "Operations told apart by their bodies dispatched
 * by body schema"): the one whose conditions the request meets that knows more of them than the dispatched one,
 * every key it requires sent (Box's `GET /web_links/{id}#get_shared_link` requires `fields`, which its label-less
 * sibling does not know). Undefined when none knows more.
 */
function closestByQuery(target: Candidate, candidates: readonly Candidate[], query: URLSearchParams, req: Request): Candidate | undefined {
  const own = target.queryFit?.(query);
  if (own === undefined) return undefined;
  let best: { candidate: Candidate; unknown: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === target || candidate.queryFit === undefined) continue;
    if (!candidate.conditions.every((c) => meets(c, query, req.headers)) || namesAnother(candidate, candidates, query, req)) continue;
    const fit = candidate.queryFit(query);
    if (fit.missing === 0 && fit.unknown < (best?.unknown ?? own.unknown)) best = { candidate, unknown: fit.unknown };
  }
  return best?.candidate;
}
