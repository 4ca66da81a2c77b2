import { openapiFileOf, pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import { pascalCase, synthesizeOperationId, toExpressPath } from '../util/naming.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import { buildEvents } from './events.js';
import type {
  ApiModel,
  CallbackModel,
  EnumModel,
  ErrorCatalogueEntry,
  Extensions,
  HeaderModel,
  JsonSchema,
  MediaTypeModel,
  MultipartField,
  OperationModel,
  ParameterGroups,
  ParameterModel,
  RequestBodyModel,
  ResponseModel,
  SchemaModel,
  SecurityRequirementModel,
} from './types.js';
import { HTTP_METHODS } from './types.js';
import { detectPagination } from './pagination.js';
import { isObj, escapePointerToken, pointerOf, unescapePointerToken } from '../util/json.js';
import { buildSchemaNode, componentSchemaPointer, SchemaNodeBuilder, withLazyNode } from './schema/build.js';
import type { SchemaNode } from './schema/types.js';

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

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** `pointer` with more unescaped tokens. */
const child = (pointer: string, ...tokens: (string | number)[]): string => pointer + pointerOf(tokens);

function extensionsOf(node: Obj): Extensions {
  const out: Extensions = {};
  for (const [key, value] of sortedEntries(node)) if (key.startsWith('x-')) out[key] = value;
  return out;
}

/** Resolves internal JSON pointers (`#/components/...`) in the bundled document. */
export class RefResolver {
  /** D164: each $ref is resolved once (model building reads the same shared parameters and schemas again and again). */
  private readonly resolved = new Map<string, unknown>();

  private schemaNodes: SchemaNodeBuilder | undefined;

  constructor(private readonly root: Obj) {}

  /** The typed schema builder of this document (./schema/build.ts): component schemas built once per document. */
  get nodes(): SchemaNodeBuilder {
    this.schemaNodes ??= new SchemaNodeBuilder(this.root);
    return this.schemaNodes;
  }

  /** Like {@link deref}, with the pointer of the node reached (`pointer` itself when `node` is no `$ref`). */
  locate<T = unknown>(node: unknown, pointer: string): { node: T; pointer: string } {
    let current = node;
    let at = pointer;
    for (let depth = 0; isObj(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 50) throw new Error(`$ref cycle at ${String(current.$ref)}`);
      at = current.$ref;
      current = this.get(current.$ref);
    }
    return { node: current as T, pointer: at };
  }

  get(ref: string): unknown {
    const cached = this.resolved.get(ref);
    if (cached !== undefined) return cached;
    if (!ref.startsWith('#')) throw new Error(`Only internal $refs are expected after bundling, got ${ref}`);
    let node: unknown = this.root;
    for (const raw of ref
      .slice(1)
      .split('/')
      .filter((s) => s.length > 0)) {
      const key = unescapePointerToken(decodeURIComponent(raw));
      if (!isObj(node) && !Array.isArray(node)) throw new Error(`Unresolvable $ref ${ref}`);
      node = (node as Obj)[key];
    }
    if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
    this.resolved.set(ref, node);
    return node;
  }

  /** Follows `$ref` chains until a non-ref node. */
  deref<T = unknown>(node: unknown): T {
    let current = node;
    for (let depth = 0; isObj(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 50) throw new Error(`$ref cycle at ${String(current.$ref)}`);
      current = this.get(current.$ref);
    }
    return current as T;
  }

  /** Object properties of a schema, merging allOf members (shallow), following refs. */
  objectShape(schema: unknown, depth = 0): { properties: Record<string, unknown>; required: Set<string> } {
    const s = this.deref<unknown>(schema);
    const out = { properties: {} as Record<string, unknown>, required: new Set<string>() };
    if (!isObj(s) || depth > 20) return out;
    if (Array.isArray(s.allOf)) {
      for (const part of s.allOf) {
        const inner = this.objectShape(part, depth + 1);
        Object.assign(out.properties, inner.properties);
        for (const r of inner.required) out.required.add(r);
      }
    }
    if (isObj(s.properties)) Object.assign(out.properties, s.properties);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') out.required.add(r);
    return out;
  }
}

function schemaTypes(schema: Obj): string[] {
  const t = schema.type;
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : typeof t === 'string' ? [t] : [];
}

function isBinarySchema(resolver: RefResolver, schema: unknown): boolean {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return false;
  return s.format === 'binary' || s.format === 'base64' || typeof s.contentMediaType === 'string' || typeof s.contentEncoding === 'string';
}

function formFields(resolver: RefResolver, schema: unknown): MultipartField[] | undefined {
  const resolved = resolver.deref<unknown>(schema);
  if (!isObj(resolved)) return undefined;
  const { properties, required } = resolver.objectShape(resolved);
  if (Object.keys(properties).length === 0) return undefined;
  return sortedEntries(properties).map(([name, propSchema]): MultipartField => {
    const prop = resolver.deref<unknown>(propSchema);
    const isArray = isObj(prop) && schemaTypes(prop).includes('array');
    const items = isArray && isObj(prop) ? prop.items : undefined;
    const binary = isArray ? isBinarySchema(resolver, items) : isBinarySchema(resolver, prop);
    const kind = binary ? (isArray ? 'files' : 'file') : isArray ? 'strings' : 'string';
    return { name, required: required.has(name), kind };
  });
}

/** Gives `target` the typed node of `schema`, written at `pointer` (undefined when there is none), built when first read. */
function withNode<T extends { node: SchemaNode | undefined }>(
  target: T,
  resolver: RefResolver,
  schema: JsonSchema | undefined,
  pointer: string,
): T {
  return withLazyNode(target, () => (schema === undefined ? undefined : resolver.nodes.build(schema, pointer)));
}

/** `pointer`: where the `content` map is written. */
function buildContent(resolver: RefResolver, content: unknown, pointer: string): MediaTypeModel[] {
  return sortedEntries(isObj(content) ? content : {}).map(([mediaType, rawMedia]): MediaTypeModel => {
    const { node: media, pointer: mediaPointer } = resolver.locate(rawMedia, child(pointer, mediaType));
    const schema = isObj(media) ? (media.schema as JsonSchema | undefined) : undefined;
    const form = /^multipart\/|^application\/x-www-form-urlencoded/.test(mediaType);
    const model: MediaTypeModel = {
      mediaType,
      schema,
      node: undefined,
      fields: form && schema !== undefined ? formFields(resolver, schema) : undefined,
    };
    return withNode(model, resolver, schema, child(mediaPointer, 'schema'));
  });
}

const DEFAULT_STYLE: Record<ParameterModel['in'], string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };

function buildParameter(resolver: RefResolver, p: Obj, level: ParameterModel['level'], pointer: string): ParameterModel {
  const location = p.in as ParameterModel['in'];
  let schema = p.schema as JsonSchema | undefined;
  let schemaPointer = child(pointer, 'schema');
  let content: ParameterModel['content'];
  if (isObj(p.content)) {
    const first = sortedEntries(p.content)[0];
    if (first !== undefined) {
      const contentSchema = isObj(first[1]) ? (first[1].schema as JsonSchema | undefined) : undefined;
      const contentPointer = child(pointer, 'content', first[0], 'schema');
      content = withNode({ mediaType: first[0], schema: contentSchema, node: undefined }, resolver, contentSchema, contentPointer);
      if (schema === undefined) {
        schema = contentSchema;
        schemaPointer = contentPointer;
      }
    }
  }
  const style = str(p.style) ?? DEFAULT_STYLE[location] ?? 'simple';
  const model: ParameterModel = {
    name: p.name as string,
    in: location,
    required: location === 'path' ? true : p.required === true,
    description: str(p.description),
    deprecated: p.deprecated === true,
    schema,
    node: undefined,
    declared: true,
    style,
    styleDeclared: typeof p.style === 'string',
    explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
    explodeDeclared: typeof p.explode === 'boolean',
    allowReserved: p.allowReserved === true,
    allowEmptyValue: p.allowEmptyValue === true,
    content,
    level,
    extensions: extensionsOf(p),
  };
  return withNode(model, resolver, schema, schemaPointer);
}

/** `pointer`: where the `parameters` list is written. */
function parameterList(resolver: RefResolver, raw: unknown, level: ParameterModel['level'], pointer: string): ParameterModel[] {
  if (!Array.isArray(raw)) return [];
  const out: ParameterModel[] = [];
  raw.forEach((item, index) => {
    const { node: p, pointer: at } = resolver.locate<Obj>(item, child(pointer, index));
    if (!isObj(p) || typeof p.name !== 'string' || typeof p.in !== 'string') return;
    if (!['path', 'query', 'header', 'cookie'].includes(p.in)) return;
    out.push(buildParameter(resolver, p, level, at));
  });
  return out;
}

/**
 * The operation's parameters: its own in declaration order, then the path item's ones it does not override (same
 * location and name; header names compare case-insensitively), plus the same grouped by location.
 */
function buildParameters(
  resolver: RefResolver,
  pathLevel: unknown,
  opLevel: unknown,
  pointers: { pathItem: string; operation: string },
): { groups: ParameterGroups; list: ParameterModel[] } {
  const key = (p: ParameterModel): string => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const list = parameterList(resolver, opLevel, 'operation', child(pointers.operation, 'parameters'));
  const own = new Set(list.map(key));
  for (const p of parameterList(resolver, pathLevel, 'path', child(pointers.pathItem, 'parameters'))) if (!own.has(key(p))) list.push(p);
  const groups: ParameterGroups = { path: [], query: [], header: [], cookie: [] };
  for (const p of list) groups[p.in].push(p);
  // Path params keep template order (positional client args); the rest are sorted by name.
  groups.query.sort((a, b) => compareStrings(a.name, b.name));
  groups.header.sort((a, b) => compareStrings(a.name.toLowerCase(), b.name.toLowerCase()));
  groups.cookie.sort((a, b) => compareStrings(a.name, b.name));
  return { groups, list };
}

/** `pointer`: the path item whose template names it (the parameter itself is written nowhere). */
function undeclaredPathParameter(name: string, pointer: string): ParameterModel {
  return {
    name,
    in: 'path',
    required: true,
    description: undefined,
    deprecated: false,
    schema: { type: 'string' },
    node: buildSchemaNode({}, { type: 'string' }, pointer),
    declared: false,
    style: 'simple',
    styleDeclared: false,
    explode: false,
    explodeDeclared: false,
    allowReserved: false,
    allowEmptyValue: false,
    content: undefined,
    level: 'operation',
    extensions: {},
  };
}

/**
 * The path parameters in template order, each once: a name the template repeats (`/accounts/{account_id}/maps/{map_id}/
 * accounts/{account_id}`) is one parameter with one value (OpenAPI declares parameters by name and location), as in
 * openapi-typescript's types and openapi-fetch's URLs (D200 a repeated path parameter is one value).
 */
export function pathTemplateNames(path: string): string[] {
  return [...new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!))];
}

/**
 * The names of the `{x}` a query string written into the path template holds (`/search?q={q}` -> `q`; D410): what
 * follows `?` up to a `#`.
 */
export function templateQueryNames(path: string): Set<string> {
  const beforeHash = path.split('#', 1)[0]!;
  const question = beforeHash.indexOf('?');
  return new Set(question === -1 ? [] : pathTemplateNames(beforeHash.slice(question + 1)));
}

function orderPathParams(path: string, params: ParameterModel[], query: readonly ParameterModel[]): ParameterModel[] {
  const order = pathTemplateNames(path);
  const byName = new Map(params.map((p) => [p.name, p]));
  // D410: a `{x}` of a query string written into the template that the operation declares as a query parameter is
  // that parameter (the server routes on the part before `?`, the client writes it into the query)
  const inQuery = templateQueryNames(path);
  const queryNames = new Set(query.map((p) => p.name));
  const out: ParameterModel[] = [];
  for (const name of order) {
    if (!byName.has(name) && inQuery.has(name) && queryNames.has(name)) continue;
    out.push(byName.get(name) ?? undeclaredPathParameter(name, child('#', 'paths', path)));
    byName.delete(name);
  }
  return [...out, ...[...byName.values()].sort((a, b) => compareStrings(a.name, b.name))];
}

/** `pointer`: where the `requestBody` is written. */
function buildRequestBody(resolver: RefResolver, raw: unknown, pointer: string): RequestBodyModel | undefined {
  if (raw === undefined) return undefined;
  const { node: body, pointer: at } = resolver.locate<Obj>(raw, pointer);
  if (!isObj(body)) return undefined;
  return {
    required: body.required === true,
    description: str(body.description),
    content: buildContent(resolver, body.content, child(at, 'content')),
  };
}

/** `pointer`: where the `headers` map is written. */
function buildHeaders(resolver: RefResolver, raw: unknown, pointer: string): HeaderModel[] {
  return sortedEntries(isObj(raw) ? raw : {}).map(([name, h]) => {
    const { node: header, pointer: at } = resolver.locate<Obj>(h, child(pointer, name));
    const schema = isObj(header) ? (header.schema as JsonSchema | undefined) : undefined;
    const model: HeaderModel = {
      name,
      required: isObj(header) && header.required === true,
      description: isObj(header) ? str(header.description) : undefined,
      schema,
      node: undefined,
    };
    return withNode(model, resolver, schema, child(at, 'schema'));
  });
}

function statusOrder(status: string): string {
  // exact codes first in numeric order, then ranges, then default
  if (/^\d{3}$/.test(status)) return `0${status}`;
  if (/^\dXX$/i.test(status)) return `1${status.toUpperCase()}`;
  return `2${status}`;
}

/** `pointer`: where the `responses` map is written. */
function buildResponses(resolver: RefResolver, raw: unknown, pointer: string): ResponseModel[] {
  const entries = sortedEntries(isObj(raw) ? raw : {}).filter(([status]) => !status.startsWith('x-'));
  const exact = new Set(
    entries
      .map(([s]) => s)
      .filter((s) => /^\d{3}$/.test(s))
      .map(Number),
  );
  return entries
    .sort(([a], [b]) => compareStrings(statusOrder(a), statusOrder(b)))
    .map(([status, r]): ResponseModel => {
      const { node: response, pointer: at } = resolver.locate<Obj>(r, child(pointer, status));
      let kind: ResponseModel['kind'] = 'default';
      let statusCodes: number[] = [];
      if (/^\d{3}$/.test(status)) {
        kind = 'exact';
        statusCodes = [Number(status)];
      } else if (/^[1-5]XX$/i.test(status)) {
        kind = 'range';
        const base = Number(status[0]) * 100;
        for (let code = base; code < base + 100; code++) if (!exact.has(code)) statusCodes.push(code);
      }
      return {
        status: kind === 'range' ? status.toUpperCase() : status,
        statusCodes,
        kind,
        description: isObj(response) ? (str(response.description) ?? '') : '',
        content: isObj(response) ? buildContent(resolver, response.content, child(at, 'content')) : [],
        headers: isObj(response) ? buildHeaders(resolver, response.headers, child(at, 'headers')) : [],
      };
    });
}

function buildSecurity(raw: unknown): SecurityRequirementModel[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((req) =>
    sortedEntries(req).map(([scheme, scopes]) => ({
      scheme,
      scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [],
    })),
  );
}

function clientIdentificationOf(raw: unknown): { header: string; product: string } | undefined {
  if (!isObj(raw)) return undefined;
  const header = str(raw.header);
  const product = str(raw.product);
  return header !== undefined && product !== undefined ? { header, product } : undefined;
}

/** `pointer`: where the `callbacks` map is written. */
function buildCallbacks(resolver: RefResolver, raw: unknown, pointer: string): CallbackModel[] {
  const out: CallbackModel[] = [];
  for (const [name, cb] of sortedEntries(isObj(raw) ? raw : {})) {
    const { node: callback, pointer: callbackAt } = resolver.locate<Obj>(cb, child(pointer, name));
    for (const [expression, item] of sortedEntries(isObj(callback) ? callback : {})) {
      const { node: pathItem, pointer: itemAt } = resolver.locate<Obj>(item, child(callbackAt, expression));
      if (!isObj(pathItem)) continue;
      out.push({
        name,
        expression,
        operations: HTTP_METHODS.filter((m) => isObj(pathItem[m])).map((method) => {
          const op = pathItem[method] as Obj;
          return {
            method,
            requestBody: buildRequestBody(resolver, op.requestBody, child(itemAt, method, 'requestBody')),
            summary: str(op.summary),
          };
        }),
      });
    }
  }
  return out;
}

/**
 * Collects error codes: `x-error-codes` (array or object keys) and `x-error-catalogue` keys anywhere, string enums of
 * component schemas named like `ErrorCode`, and the (ref-resolved) `code` enum of error schemas.
 */
export function collectErrorCodes(doc: Obj): string[] {
  const resolver = new RefResolver(doc);
  const codes = new Set<string>();
  const addEnum = (schema: unknown): void => {
    let resolved: unknown;
    try {
      resolved = resolver.deref(schema);
    } catch {
      return;
    }
    if (isObj(resolved) && Array.isArray(resolved.enum)) for (const c of resolved.enum) if (typeof c === 'string') codes.add(c);
  };
  const visit = (node: unknown, pointer: string, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      node.forEach((v, i) => visit(v, `${pointer}/${i}`, depth + 1));
      return;
    }
    if (!isObj(node)) return;
    for (const key of ['x-error-codes', 'x-error-catalogue']) {
      const ext = node[key];
      if (Array.isArray(ext)) for (const c of ext) if (typeof c === 'string') codes.add(c);
      if (isObj(ext)) for (const c of Object.keys(ext)) codes.add(c);
    }
    if (/error/i.test(pointer) && isObj(node.properties) && node.properties.code !== undefined) addEnum(node.properties.code);
    for (const [key, value] of Object.entries(node))
      if (key !== 'examples' && key !== 'example') visit(value, `${pointer}/${key}`, depth + 1);
  };
  const components = isObj(doc.components) ? doc.components : {};
  for (const [name, schema] of sortedEntries(isObj(components.schemas) ? components.schemas : {})) {
    if (/error_?code/i.test(name)) addEnum(schema);
  }
  visit(doc.components, '#/components', 0);
  visit(doc.paths, '#/paths', 0);
  visit(doc['x-error-codes'] === undefined ? undefined : { 'x-error-codes': doc['x-error-codes'] }, '#', 0);
  return [...codes].sort(compareStrings);
}

const ENUM_VALUE = (v: unknown): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Named enumerations: every component schema with an `enum`, and every inline `enum` on a component's property
 * (or on its array items). A property enum is named after the property (`business_mode` -> `BusinessMode`) when
 * that name is free and every property of that name carries the same values; otherwise after schema + property
 * (`KycUpdateRequestStatus`). Identical property enums share one entry.
 */
export function collectEnums(schemas: readonly { name: string; schema: JsonSchema }[]): EnumModel[] {
  const out = new Map<string, EnumModel>();
  const escape = escapePointerToken;
  for (const { name, schema } of schemas) {
    if (!isObj(schema) || !Array.isArray(schema.enum) || !schema.enum.every(ENUM_VALUE)) continue;
    const id = pascalCase(name);
    if (id.length === 0 || out.has(id)) continue;
    out.set(id, {
      name: id,
      values: [...schema.enum],
      description: str(schema.description),
      pointers: [`#/components/schemas/${escape(name)}`],
    });
  }
  interface Candidate {
    schema: string;
    property: string;
    values: EnumModel['values'];
    description: string | undefined;
    pointer: string;
  }
  const candidates: Candidate[] = [];
  for (const { name, schema } of schemas) {
    if (!isObj(schema)) continue;
    const members = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.filter(isObj) : [])];
    members.forEach((member, index) => {
      const base = index === 0 ? `#/components/schemas/${escape(name)}` : `#/components/schemas/${escape(name)}/allOf/${index - 1}`;
      for (const [property, prop] of sortedEntries(isObj(member.properties) ? member.properties : {})) {
        if (!isObj(prop)) continue;
        const target = Array.isArray(prop.enum) ? prop : isObj(prop.items) && Array.isArray(prop.items.enum) ? prop.items : undefined;
        if (target === undefined || !(target.enum as unknown[]).every(ENUM_VALUE)) continue;
        const pointer = `${base}/properties/${escape(property)}${target === prop ? '' : '/items'}`;
        candidates.push({
          schema: name,
          property,
          values: [...(target.enum as EnumModel['values'])],
          description: str(target.description) ?? str(prop.description),
          pointer,
        });
      }
    });
  }
  const byProperty = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const id = pascalCase(c.property);
    byProperty.set(id, [...(byProperty.get(id) ?? []), c]);
  }
  const same = (a: EnumModel['values'], b: EnumModel['values']) => a.length === b.length && a.every((v, i) => v === b[i]);
  for (const [id, group] of [...byProperty].sort(([a], [b]) => compareStrings(a, b))) {
    if (id.length === 0) continue;
    const uniform = group.every((c) => same(c.values, group[0]!.values));
    if (uniform && !out.has(id)) {
      out.set(id, { name: id, values: group[0]!.values, description: group[0]!.description, pointers: group.map((c) => c.pointer) });
      continue;
    }
    for (const c of group) {
      let qualified = `${pascalCase(c.schema)}${id}`;
      const existing = out.get(qualified);
      if (existing !== undefined && same(existing.values, c.values)) {
        existing.pointers.push(c.pointer);
        continue;
      }
      for (let n = 2; out.has(qualified); n++) qualified = `${pascalCase(c.schema)}${id}${n}`;
      out.set(qualified, { name: qualified, values: c.values, description: c.description, pointers: [c.pointer] });
    }
  }
  return [...out.values()].sort((a, b) => compareStrings(a.name, b.name));
}

/** `x-error-catalogue` objects anywhere in components (code -> { status, when }), sorted by code. */
export function collectErrorCatalogue(doc: Obj): ErrorCatalogueEntry[] {
  const entries = new Map<string, ErrorCatalogueEntry>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (const v of node) visit(v, depth + 1);
      return;
    }
    if (!isObj(node)) return;
    const catalogue = node['x-error-catalogue'];
    if (isObj(catalogue)) {
      for (const [code, entry] of sortedEntries(catalogue)) {
        if (entries.has(code)) continue;
        entries.set(code, {
          code,
          status: isObj(entry) && typeof entry.status === 'number' ? entry.status : undefined,
          when: isObj(entry) ? str(entry.when) : undefined,
        });
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'examples' && key !== 'example') visit(value, depth + 1);
  };
  visit(doc.components, 0);
  return [...entries.values()].sort((a, b) => compareStrings(a.code, b.code));
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
  const operations: OperationModel[] = [];
  for (const [path, rawItem] of sortedEntries(isObj(document.paths) ? document.paths : {})) {
    const { node: item, pointer: itemAt } = resolver.locate<Obj>(rawItem, child('#', 'paths', path));
    if (!isObj(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const opAt = child(itemAt, method);
      const { groups: params, list } = buildParameters(resolver, item.parameters, op.parameters, { pathItem: itemAt, operation: opAt });
      params.path = orderPathParams(path, params.path, params.query);
      const responses = buildResponses(resolver, op.responses, child(opAt, 'responses'));
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
        requestBody: buildRequestBody(resolver, op.requestBody, child(opAt, 'requestBody')),
        responses,
        security: buildSecurity(op.security ?? document.security),
        callbacks: buildCallbacks(resolver, op.callbacks, child(opAt, 'callbacks')),
        pagination: detectPagination({
          resolver,
          method,
          path,
          operation: op,
          query: params.query,
          responses,
          file: openapiFileOf(options.source),
        }),
        extensions: extensionsOf(op),
      });
    }
  }
  refuseDuplicateOperationIds(operations, openapiFileOf(options.source));
  dedupeOperationIds(operations);
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

/** Synthesised ids can collide (`/a-b` vs `/a_b`): suffix later ones deterministically. Explicit ids are left alone. */
function dedupeOperationIds(operations: OperationModel[]): void {
  const seen = new Set<string>();
  for (const op of operations) if (!op.synthesizedId) seen.add(op.operationId);
  for (const op of operations) {
    if (!op.synthesizedId) continue;
    let id = op.operationId;
    for (let n = 2; seen.has(id); n++) id = `${op.operationId}${n}`;
    seen.add(id);
    op.operationId = id;
  }
}

/** Two operations with one explicit operationId would share a handler, a client method and a route-table key. */
function refuseDuplicateOperationIds(operations: readonly OperationModel[], file: string): void {
  const first = new Map<string, OperationModel>();
  for (const op of operations) {
    if (op.synthesizedId) continue;
    const earlier = first.get(op.operationId);
    if (earlier === undefined) {
      first.set(op.operationId, op);
      continue;
    }
    throw new UnsupportedSpecError(
      file,
      `#/paths/${pointerToken(op.path)}/${op.method}/operationId`,
      `operationId ${JSON.stringify(op.operationId)} is already used by ${earlier.method.toUpperCase()} ${earlier.path}; operationIds must be unique.`,
      'give one of the two operations another operationId (or remove it: a missing one is derived from the method and path).',
    );
  }
}
