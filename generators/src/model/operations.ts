/**
 * The operations of the document's paths, sorted by path then method (the order every emitter writes them in): each
 * with its parameters, bodies, responses, effective security, callbacks and page shape; operationIds made unique.
 */
import { childPointer, isObj } from '../util/json.js';
import { synthesizeOperationId, toExpressPath } from '../util/naming.js';
import { sortedEntries } from '../util/sorted.js';
import { buildCallbacks } from './callbacks.js';
import { buildRequestBody } from './content.js';
import { dedupeOperationIds, refuseDuplicateOperationIds } from './operation-ids.js';
import { detectPagination } from './pagination.js';
import { buildParameters, orderPathParams } from './parameters.js';
import { extensionsOf, str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import { buildResponses } from './responses.js';
import { HTTP_METHODS, type OperationModel, type SecurityRequirementModel } from './types.js';

type Obj = Record<string, unknown>;

function buildSecurity(raw: unknown): SecurityRequirementModel[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((req) =>
    sortedEntries(req).map(([scheme, scopes]) => ({
      scheme,
      scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [],
    })),
  );
}

/** `file`: the OpenAPI document's path, for refusals (a duplicate explicit operationId). */
export function buildOperations(resolver: RefResolver, document: Obj, file: string): OperationModel[] {
  const operations: OperationModel[] = [];
  for (const [path, rawItem] of sortedEntries(isObj(document.paths) ? document.paths : {})) {
    const { node: item, pointer: itemAt } = resolver.locate<Obj>(rawItem, childPointer('#', 'paths', path));
    if (!isObj(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const opAt = childPointer(itemAt, method);
      const { groups: params, list } = buildParameters(resolver, item.parameters, op.parameters, { pathItem: itemAt, operation: opAt });
      params.path = orderPathParams(path, params.path, params.query);
      const responses = buildResponses(resolver, op.responses, childPointer(opAt, 'responses'));
      // An empty or blank operationId names nothing: derived like a missing one (decision D62).
      const explicitId = str(op.operationId)?.trim() || undefined;
      operations.push({
        operationId: explicitId ?? synthesizeOperationId(method, path),
        synthesizedId: explicitId === undefined,
        method,
        path,
        expressPath: toExpressPath(path),
        tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
        summary: str(op.summary) ?? str(item.summary),
        description: str(op.description) ?? str(item.description),
        deprecated: op.deprecated === true,
        parameters: params,
        parameterList: list,
        requestBody: buildRequestBody(resolver, op.requestBody, childPointer(opAt, 'requestBody')),
        responses,
        security: buildSecurity(op.security ?? document.security),
        callbacks: buildCallbacks(resolver, op.callbacks, childPointer(opAt, 'callbacks')),
        pagination: detectPagination({
          resolver,
          method,
          path,
          operation: op,
          query: params.query,
          responses,
          file,
        }),
        extensions: extensionsOf(op),
      });
    }
  }
  refuseDuplicateOperationIds(operations, file);
  dedupeOperationIds(operations);
  return operations;
}
