/**
 * Response validation (development and tests): express-openapi-validator, a declared dependency, through its public
 * `middleware()` API only. Operations are validated in groups, each group by one validator over a document holding
 * just its operations and the components they reach, created on the first request to one of them: the library's
 * per-request route lookup then tries a few routes instead of every path of the spec, and an app that serves few
 * operations builds few validators.
 */
import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as OpenApiValidatorModule from 'express-openapi-validator';
import type { ApiDocument, OperationRoute } from './types.js';
import { isObj, unescapePointerToken } from '@paygate/contract/json';

type OpenApiValidatorLib = typeof OpenApiValidatorModule;
let library: OpenApiValidatorLib | undefined;

/** express-openapi-validator, loaded on first use (production, which validates no responses, never loads it). */
function loadOpenApiValidator(): OpenApiValidatorLib {
  library ??= createRequire(import.meta.url)('express-openapi-validator') as OpenApiValidatorLib;
  return library;
}

type Obj = Record<string, unknown>;
type Member = Pick<OperationRoute, 'path' | 'method'>;

function decodePointerToken(token: string): string {
  return unescapePointerToken(token);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Operations per validator: the library compiles the OpenAPI meta-schema once per `middleware()` call (its
 * OpenAPISchemaValidator, even with `validateApiSpec: false`; about 60 ms of CPU each, more before the JIT warms),
 * so one validator per operation paid that for every operation a process served; and its per-request route lookup
 * compiles a path-to-regexp pattern for every route of its document, so one validator for a whole Stripe-sized
 * document would pay hundreds per request. A group of operations bounds both (docs/benchmarks.md, "npm test: wall time and CPU").
 */
const OPERATIONS_PER_VALIDATOR = 16;

/** The path a member is validated under in its group's document: a static path, so the library's lookup is exact. */
const memberPath = (position: number): string => `/operation-${position}`;

/**
 * A document holding the given operations under their member paths (without their parameters: requests are not
 * validated here) and the components they reach through `#/components/<kind>/<name>` references, transitively. Every
 * other top-level member (openapi, info...) is kept as is. Why member paths and not the templates: the library then
 * matches exactly the operation the dispatcher chose (it could otherwise prefer another template of the same shape), and
 * a template its path-to-regexp cannot read (Azure's `/docs('{key}')`, `{a}{b}` in one segment) needs no translation.
 */
export function validationDocument(document: ApiDocument, members: readonly Member[]): ApiDocument {
  const paths = (document.paths ?? {}) as Record<string, Obj>;
  const components = isObj(document.components) ? document.components : {};
  const reached: Record<string, Obj> = {};
  const reducedPaths: Record<string, Obj> = {};
  const pending: unknown[] = [];
  members.forEach((member, position) => {
    const operation = paths[member.path]?.[member.method];
    if (!isObj(operation)) return;
    const { parameters: _parameters, ...withoutParameters } = operation;
    reducedPaths[memberPath(position)] = { [member.method]: withoutParameters };
    pending.push(withoutParameters);
  });
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (!isObj(node)) continue;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
      if (match !== null) {
        const kind = decodePointerToken(match[1]!);
        const name = decodePointerToken(match[2]!);
        const target = (components[kind] as Obj | undefined)?.[name];
        if (target !== undefined && reached[kind]?.[name] === undefined) {
          (reached[kind] ??= {})[name] = target;
          pending.push(target);
        }
      }
    }
    for (const value of Object.values(node)) if (value !== null && typeof value === 'object') pending.push(value);
  }
  const { webhooks: _webhooks, paths: _paths, ...rest } = document;
  return {
    ...rest,
    paths: reducedPaths,
    components: { ...(isObj(components.securitySchemes) ? { securitySchemes: components.securitySchemes } : {}), ...reached },
  };
}

/** A group's validator chain, made on the first request to any of its operations; `broken` once it failed to build. */
interface Group {
  members: Member[];
  chain?: RequestHandler[];
  broken: boolean;
}

/** Where an operation is validated: its group's chain and its path there, or a chain of its own. */
interface Target {
  chain: RequestHandler[];
  /** The operation's path in its chain's document (a group's member path, or the one path of a chain of its own). */
  memberPath: string;
  group?: Group;
}

/**
 * The validators of one document and mount path, made once per process: every app made from the same document (a
 * test file's gateways, an app rebuilt on reload) reuses them. Operations are grouped in the document's order
 * (paths, then methods), OPERATIONS_PER_VALIDATOR to a group.
 */
interface DocumentValidators {
  groups: Map<string, { group: Group; position: number }>;
  /** Chains of one operation: for the operations of a group whose chain failed to build. */
  alone: Map<string, RequestHandler[]>;
}

const kept = new WeakMap<ApiDocument, Map<string, DocumentValidators>>();
const keyOf = (member: Member): string => `${member.method} ${member.path}`;

function documentValidators(apiDocument: ApiDocument, baseUrl: string): DocumentValidators {
  let byBase = kept.get(apiDocument);
  if (byBase === undefined) kept.set(apiDocument, (byBase = new Map()));
  const known = byBase.get(baseUrl);
  if (known !== undefined) return known;
  const members: Member[] = [];
  for (const [path, item] of Object.entries((apiDocument.paths ?? {}) as Record<string, Obj>))
    for (const method of METHODS) if (isObj(item[method])) members.push({ path, method });
  const groups = new Map<string, { group: Group; position: number }>();
  for (let start = 0; start < members.length; start += OPERATIONS_PER_VALIDATOR) {
    const group: Group = { members: members.slice(start, start + OPERATIONS_PER_VALIDATOR), broken: false };
    group.members.forEach((member, position) => groups.set(keyOf(member), { group, position }));
  }
  const made: DocumentValidators = { groups, alone: new Map() };
  byBase.set(baseUrl, made);
  return made;
}

function makeChain(apiDocument: ApiDocument, members: readonly Member[], baseUrl: string): RequestHandler[] {
  const OpenApiValidator = loadOpenApiValidator();
  return OpenApiValidator.middleware({
    // why the casts: the library types its input as its own OpenAPIV3.DocumentV3 and its output as an Express 4
    // handler array; our bundled document is the same JSON under Paygate's ApiDocument type, the handlers are Express 5 compatible
    // The scaffold serves the spec's paths at the root of wherever the app is mounted, whatever the spec's
    // servers say: the library turns a server URL's path into a route pattern, where a `+` (Train Travel's,
    // Shelf's `/v1+beta`) throws on every response. The mount path is what requests carry.
    apiSpec: {
      ...validationDocument(apiDocument, members),
      servers: [{ url: baseUrl === '' ? '/' : baseUrl }],
    } as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'], // see above
    validateApiSpec: false,
    validateRequests: false,
    validateResponses: { allErrors: true },
    validateSecurity: false,
    $refParser: { mode: 'bundle' },
    fileUploader: false,
  }) as unknown as RequestHandler[]; // see above
}

/** The chain that validates `operation`'s responses: its group's, or its own once the group's failed to build. */
function targetOf(apiDocument: ApiDocument, operation: OperationRoute, baseUrl: string): Target {
  const validators = documentValidators(apiDocument, baseUrl);
  const member: Member = { path: operation.path, method: operation.method };
  const grouped = validators.groups.get(keyOf(member));
  if (grouped !== undefined && !grouped.group.broken) {
    grouped.group.chain ??= makeChain(apiDocument, grouped.group.members, baseUrl);
    return { chain: grouped.group.chain, memberPath: memberPath(grouped.position), group: grouped.group };
  }
  let alone = validators.alone.get(keyOf(member));
  if (alone === undefined) validators.alone.set(keyOf(member), (alone = makeChain(apiDocument, [member], baseUrl)));
  return { chain: alone, memberPath: memberPath(0) };
}

/**
 * Validates the responses of one operation (handlers' bodies, statuses and headers) against the spec. A schema the
 * library's Ajv cannot compile (its strict tuples refuse a `prefixItems` tuple JSON Schema allows, D198) is not a
 * failed request: that operation's responses go unvalidated, said once through `onNotValidated`.
 */
export function createResponseValidator(
  apiDocument: ApiDocument,
  operation: OperationRoute,
  onNotValidated: (reason: string) => void = () => undefined,
): RequestHandler {
  let unavailable = false;
  const validate = (req: Request, res: Response, next: NextFunction): void => {
    if (unavailable) {
      next();
      return;
    }
    const target = targetOf(apiDocument, operation, req.baseUrl);
    // The library matches the request's URL against its document's paths: during its steps the request carries the
    // operation's member path (the URL, its query and the params are given back before the handler runs). Its route
    // lookup also resets `req.params` to strings: the validated (coerced) ones are put back after it.
    const { url, originalUrl, params } = req;
    const restore = (): void => {
      req.url = url;
      req.originalUrl = originalUrl;
      req.params = params;
    };
    req.url = target.memberPath;
    req.originalUrl = `${req.baseUrl}${target.memberPath}`;
    const steps = target.chain;
    const run = (index: number, error?: unknown): void => {
      if (error !== undefined && error !== null) {
        restore();
        // the library's own errors (a response off the spec, a route it cannot match) carry a status; an error without
        // one is its Ajv refusing to compile a schema (D198 tolerant schema compilation): a group's chain is given up
        // for chains of one operation each, so that only the operation whose schema it refuses goes unvalidated
        if (typeof (error as { status?: unknown }).status !== 'number') {
          if (target.group !== undefined) {
            target.group.broken = true;
            validate(req, res, next);
            return;
          }
          unavailable = true;
          onNotValidated((error as Error).message ?? String(error));
          next();
          return;
        }
        next(error);
        return;
      }
      if (index === steps.length) {
        restore();
        next();
        return;
      }
      void steps[index]!(req, res, (err?: unknown) => run(index + 1, err));
    };
    run(0);
  };
  return validate;
}
