/**
 * The model builder (generators/src/model): the bundled document (3.0 or 3.1) as the {@link ApiModel} every emitter
 * reads. One module per spec object, each with its test beside it: parameters.ts, content.ts (bodies, headers),
 * responses.ts, callbacks.ts, operations.ts (paths and operations), enums.ts, error-codes.ts, events.ts,
 * pagination.ts; schema/ the typed schema nodes (D475 typed schema model with one walker, a node beside every raw schema); ref-resolver.ts follows `$ref`s in raw JSON.
 */
import { openapiFileOf } from '../parse/refusal.js';
import { isObj } from '../util/json.js';
import { sortedEntries } from '../util/sorted.js';
import { collectEnums } from './enums.js';
import { collectErrorCatalogue, collectErrorCodes } from './error-codes.js';
import { buildEvents } from './events.js';
import { buildOperations } from './operations.js';
import { buildParameters } from './parameters.js';
import { str, extensionsOf } from './raw.js';
import { RefResolver } from './ref-resolver.js';
import { componentSchemaPointer, withLazyNode } from './schema/build.js';
import type { SchemaNode } from './schema/types.js';
import type { ApiModel, JsonSchema, SchemaModel } from './types.js';

type Obj = Record<string, unknown>;

export interface AsyncMessageInput {
  name: string;
  summary: string | undefined;
  description: string | undefined;
  payload: unknown;
  /** Tag names (the first is the event's docs category). */
  tags?: string[];
}

export interface PlannedEventInput {
  eventType: string;
  category?: string | undefined;
  summary: string;
}

export interface BuildModelOptions {
  /** Repo-relative source path printed in generated headers. */
  source: string;
  /** AsyncAPI messages (already parsed) merged into `webhooks`. */
  asyncMessages?: AsyncMessageInput[];
  /** Property discriminating webhook events (default: `x-event-discriminator`, else detected, D211). */
  webhookDiscriminator?: string;
  /** Events announced for later versions (the AsyncAPI document's `x-planned-events`). */
  plannedEvents?: PlannedEventInput[];
}

function clientIdentificationOf(raw: unknown): { header: string; product: string } | undefined {
  if (!isObj(raw)) return undefined;
  const header = str(raw.header);
  const product = str(raw.product);
  return header !== undefined && product !== undefined ? { header, product } : undefined;
}

/** Builds the intermediate model from a bundled OpenAPI document (3.0 or 3.1). */
export function buildModel(document: Obj, options: BuildModelOptions): ApiModel {
  const resolver = new RefResolver(document);
  const info = isObj(document.info) ? document.info : {};
  const components = isObj(document.components) ? document.components : {};

  // Named typed nodes, each built once (D475 typed schema model with one walker, a node beside every raw schema); the raw schema stays beside its node
  const schemas = sortedEntries(isObj(components.schemas) ? (components.schemas as Record<string, JsonSchema>) : {}).map(
    ([name, schema]): SchemaModel => {
      // built on first read, once per name (D475 typed schema model with one walker, a node beside every raw schema)
      return withLazyNode(
        { name, ref: componentSchemaPointer(name), schema, node: undefined as unknown as SchemaNode },
        () => resolver.nodes.namedNode(name)!,
      );
    },
  );
  const operations = buildOperations(resolver, document, openapiFileOf(options.source));
  const enums = collectEnums(schemas);
  // D210 "Events from webhooks and callbacks": webhooks, callbacks and AsyncAPI messages (model/events.ts); their type names leave the enums theirs.
  const events = buildEvents({
    resolver,
    document,
    operations,
    asyncMessages: options.asyncMessages ?? [],
    discriminator: options.webhookDiscriminator,
    headerParameters: (pathLevel, opLevel, operationPointer) =>
      buildParameters(resolver, pathLevel, opLevel, {
        pathItem: operationPointer.slice(0, operationPointer.lastIndexOf('/')),
        operation: operationPointer,
      }).list,
    takenTypeNames: enums.map((e) => e.name),
  });

  return {
    source: options.source,
    title: str(info.title) ?? 'API',
    clientName: str(info['x-client-name']),
    clientIdentification: clientIdentificationOf(info['x-client-identification']),
    version: str(info.version) ?? '0.0.0',
    description: str(info.description),
    openapiVersion: str(document.openapi) ?? '3.0.0',
    servers: (Array.isArray(document.servers) ? document.servers : [])
      .filter(isObj)
      .map((s) => ({ url: str(s.url) ?? '/', description: str(s.description) })),
    tags: (Array.isArray(document.tags) ? document.tags : [])
      .filter(isObj)
      .map((t) => ({ name: str(t.name) ?? '', description: str(t.description) })),
    operations,
    schemas,
    securitySchemes: sortedEntries(isObj(components.securitySchemes) ? components.securitySchemes : {}).map(([name, raw]) => {
      const s = resolver.deref<Obj>(raw);
      return {
        name,
        type: str(s.type) ?? 'unknown',
        in: str(s.in),
        parameterName: str(s.name),
        scheme: str(s.scheme),
        description: str(s.description),
        clientOption: str(s['x-client-option']),
      };
    }),
    webhooks: events.events,
    errorCodes: collectErrorCodes(document),
    errorCatalogue: collectErrorCatalogue(document),
    enums,
    plannedEvents: (options.plannedEvents ?? []).map((e) => ({ eventType: e.eventType, category: e.category, summary: e.summary })),
    webhookDiscriminator: events.discriminator,
    extensions: extensionsOf(document),
  };
}
