/**
 * Response validation (development and tests): express-openapi-validator, a declared dependency, through its public
 * `middleware()` API only. Each operation gets its own validator over a document holding just that operation and
 * the components it reaches, created on the operation's first request: the library's per-request route lookup then
 * tries one route instead of every path of the spec, and an app that serves few operations builds few validators.
 */
import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as OpenApiValidatorModule from 'express-openapi-validator';
import { sentPath } from './route-template.js';
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

function decodePointerToken(token: string): string {
  return unescapePointerToken(token);
}

/**
 * The key the library matches a request of this operation against (D410 every path template real specs use is routed): the path a client sends (nothing after `#`,
 * no query string written into the template), a segment shared by a parameter and text or another parameter read as
 * one parameter (its path-to-regexp refuses `{a}{b}`; the dispatcher has bound and validated them already), and the
 * characters path-to-regexp reads as syntax escaped (Azure's `/docs('{key}')`).
 */
function libraryPath(template: string): string {
  return sentPath(template)
    .split('/')
    .map((segment) => (segment.includes('{') && !/^\{[^}]+\}$/.test(segment) ? `{${/\{([^}]+)\}/.exec(segment)![1]}}` : segment))
    .join('/')
    .replace(/[()[\]*+?!]/g, '\\$&');
}

/**
 * The document reduced to one operation (with its path item's parameters) and the components it reaches through
 * `#/components/<kind>/<name>` references, transitively. Every other top-level member (openapi, info, servers...)
 * is kept as is.
 */
export function operationDocument(document: ApiDocument, operation: Pick<OperationRoute, 'path' | 'method'>): ApiDocument {
  const paths = (document.paths ?? {}) as Record<string, Obj>;
  const item = paths[operation.path] ?? {};
  const reducedItem: Obj = { [operation.method]: item[operation.method] };
  if (item.parameters !== undefined) reducedItem.parameters = item.parameters;
  const components = isObj(document.components) ? document.components : {};
  const reached: Record<string, Obj> = {};
  const pending: unknown[] = [reducedItem];
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
  const { webhooks: _webhooks, ...rest } = document;
  return {
    ...rest,
    paths: { [libraryPath(operation.path)]: reducedItem },
    components: { ...(isObj(components.securitySchemes) ? { securitySchemes: components.securitySchemes } : {}), ...reached },
  };
}

/**
 * One operation's validator chain, made once per process for a document, operation and mount path: every app made
 * from the same document (a test file's gateways, an app rebuilt on reload) reuses it. Why: the library compiles the
 * OpenAPI meta-schema in every `middleware()` call, even with `validateApiSpec: false` (its OpenAPISchemaValidator),
 * paid for each operation again by every new app (measured in docs/benchmarks.md, npm test: wall time and CPU).
 */
const keptChains = new WeakMap<ApiDocument, Map<string, RequestHandler[]>>();

function keptChain(apiDocument: ApiDocument, operation: OperationRoute, baseUrl: string): RequestHandler[] {
  let byOperation = keptChains.get(apiDocument);
  if (byOperation === undefined) keptChains.set(apiDocument, (byOperation = new Map()));
  const key = `${operation.method} ${operation.path} ${baseUrl}`;
  const kept = byOperation.get(key);
  if (kept !== undefined) return kept;
  const OpenApiValidator = loadOpenApiValidator();
  const made = OpenApiValidator.middleware({
    // why the casts: the library types its input as its own OpenAPIV3.DocumentV3 and its output as an Express 4
    // handler array; our bundled document is the same JSON under Paygate's ApiDocument type, the handlers are Express 5 compatible
    // The scaffold serves the spec's paths at the root of wherever the app is mounted, whatever the spec's
    // servers say: the library turns a server URL's path into a route pattern, where a `+` (Train Travel's,
    // Shelf's `/v1+beta`) throws on every response. The mount path is what requests carry.
    apiSpec: {
      ...operationDocument(apiDocument, operation),
      servers: [{ url: baseUrl === '' ? '/' : baseUrl }],
    } as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'], // see above
    validateApiSpec: false,
    validateRequests: false,
    validateResponses: { allErrors: true },
    validateSecurity: false,
    $refParser: { mode: 'bundle' },
    fileUploader: false,
  }) as unknown as RequestHandler[]; // see above
  byOperation.set(key, made);
  return made;
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
  let chain: RequestHandler[] | undefined;
  let unavailable = false;
  return (req: Request, res: Response, next: NextFunction) => {
    if (unavailable) {
      next();
      return;
    }
    if (chain === undefined) chain = keptChain(apiDocument, operation, req.baseUrl);
    // The library's route lookup resets `req.params` to strings: the validated (coerced) ones are put back after it.
    const params = req.params;
    const steps = chain;
    const run = (index: number, error?: unknown): void => {
      if (error !== undefined && error !== null) {
        // the library's own errors (a response off the spec, a route it cannot match) carry a status; an error without
        // one is its Ajv refusing to compile a schema: degrade this operation's response validation, not the request
        if (typeof (error as { status?: unknown }).status !== 'number') {
          unavailable = true;
          onNotValidated((error as Error).message ?? String(error));
          req.params = params;
          next();
          return;
        }
        next(error);
        return;
      }
      if (index === steps.length) {
        req.params = params;
        next();
        return;
      }
      void steps[index]!(req, res, (err?: unknown) => run(index + 1, err));
    };
    run(0);
  };
}
