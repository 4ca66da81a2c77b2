/**
 * Responses compiled from the spec (D142 compiled response serializers in production): one fast-json-stringify serializer per declared JSON response schema
 * (operation + status key + media type), compiled from the embedded document on the first response that needs it (no
 * generated code: the generated output of large specs must shrink, issue 23), cached for the life of the app.
 *
 * What it changes on the wire:
 * - a property the schema does not declare never leaves the server (defense in depth against leaking a column); an
 *   object with `additionalProperties: true` or a schema (or `patternProperties`) keeps its extra properties as declared,
 *   and so does a free-form object (`type: object` and nothing else);
 * - properties come out in the schema's order (fast-json-stringify writes required ones first): stable, whatever order
 *   the handler built its object in;
 * - every value of a declared shape is written as JSON.stringify writes it (strings escaped, lone surrogates as
 *   `\udXXX`, Dates through toJSON, -0 as 0, null as null, 10.5 under `type: integer` as 10.5: changing a value is the
 *   validator's job to report, never the serialiser's to do; see forSerializer).
 * A schema that cannot be compiled answers with JSON.stringify for that response, said once in the log; a body the
 * serializer refuses (a required property missing, a number that is not finite: an off-spec handler) too, logged once
 * per response. Never a 500 for it.
 */
import { createRequire } from 'node:module';
import type { ApiDocument, Logger, OperationRoute } from './types.js';
import { isObj, SUBSCHEMA_KEYWORDS, unescapePointerToken } from '@paygate/contract/json';

type Obj = Record<string, unknown>;
type Serialize = (body: unknown) => string;
type Build = (schema: Obj, options?: Obj) => Serialize;

let build: Build | undefined;
/** fast-json-stringify, loaded on the first JSON response (start-up does not pay for it). */
function compiler(): Build {
  build ??= createRequire(import.meta.url)('fast-json-stringify') as Build;
  return build;
}

/** Formats fast-json-stringify writes without escaping a string value (a `"` in it would break the JSON). */
const UNESCAPED_FORMATS = new Set(['date-time', 'date', 'time']);

/**
 * A deep copy of a schema as the serializer must read it, so that it never changes a value, only drops undeclared
 * properties:
 * - `type: integer` as `number` (fast-json-stringify would truncate 10.5 to 10);
 * - every type nullable (it would write a null integer as 0, a null array as []: JSON.stringify writes null, and an
 *   off-spec null is response validation's to report);
 * - no `date-time`/`date`/`time` format: with one, a string value is written unescaped (found by the property test: a
 *   `"` in it broke the JSON) and a Date as a date only; without, a Date is written as JSON.stringify does (toJSON);
 * - no `additionalProperties: false`: fast-json-stringify strips undeclared properties without it too, and with it a
 *   union (oneOf/anyOf, whose branch is chosen by validating the value) would match no branch for a body carrying an
 *   undeclared property;
 * - an object schema that declares no properties at all (a free-form object such as `metadata: {type: object}`, D118)
 *   as `additionalProperties: true`: it declares "any property", so nothing of it is stripped.
 */
function forSerializer(node: unknown): unknown {
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && (typeof value === 'string' || Array.isArray(value))) {
      // one type and null: `nullable` (fast-json-stringify strips an object's undeclared properties under `nullable`,
      // not under a type array); several: the array, with null
      const types = [
        ...new Set((Array.isArray(value) ? (value as unknown[]) : [value]).map((t) => (t === 'integer' ? 'number' : t))),
      ].filter((t) => t !== 'null');
      if (types.length === 1) {
        out[key] = types[0];
        out.nullable = true;
      } else out[key] = types.length === 0 ? 'null' : [...types, 'null'];
    } else if (key === 'nullable') continue;
    else if (key === 'format' && typeof value === 'string' && UNESCAPED_FORMATS.has(value)) continue;
    else if (key === 'additionalProperties' && value === false) continue;
    else if (SUBSCHEMA_KEYWORDS.one.has(key)) out[key] = forSerializer(value);
    else if (SUBSCHEMA_KEYWORDS.list.has(key) && Array.isArray(value)) out[key] = value.map(forSerializer);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, forSerializer(schema)]));
    else out[key] = value;
  }
  const object = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (object && node.properties === undefined && node.patternProperties === undefined && node.additionalProperties === undefined)
    out.additionalProperties = true;
  return out;
}

/** Keywords that say nothing about a value (a branch made of `type: 'null'` and these accepts null only). */
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'example']);

/** A branch that accepts null and nothing else: `{type: 'null'}`, annotations aside. */
const isNullOnly = (node: unknown): boolean =>
  isObj(node) && node.type === 'null' && Object.keys(node).every((key) => key === 'type' || ANNOTATIONS.has(key));

/**
 * D186: the nullable-reference idiom of OpenAPI 3.1, `oneOf`/`anyOf` of `{type: 'null'}` and one schema that declares
 * a `type` (inline, or a $ref to one), read as `allOf: [that schema]`. forSerializer makes every typed schema nullable,
 * so the two write the same JSON for null and for a value of the schema (undeclared properties stripped alike), but
 * fast-json-stringify chooses a union's branch by validating the value with Ajv: an Ajv compile of the branches on the
 * first response (the first request of a cold start pays it: docs/benchmarks.md#serializer-union-branches) and a validation on every one. A value
 * that fits neither branch was sent with JSON.stringify (the serializer refused it); it is now written as the schema
 * says, as a mistyped value of any non-union property already is (reporting it is response validation's job).
 * `resolve` follows a $ref in the original document; a branch whose type cannot be seen is left a union.
 */
function withoutNullUnions(node: unknown, resolve: (node: unknown) => unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutNullUnions(item, resolve));
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) out[key] = withoutNullUnions(value, resolve);
  for (const union of ['oneOf', 'anyOf'] as const) {
    const branches = out[union];
    if (!Array.isArray(branches) || branches.length !== 2 || out.allOf !== undefined) continue;
    const nullAt = branches.findIndex(isNullOnly);
    if (nullAt === -1) continue;
    const other = branches[1 - nullAt] as unknown;
    const target = resolve(other);
    if (!isObj(target) || target.type === undefined || target.type === 'null') continue;
    delete out[union];
    out.allOf = [other];
  }
  return out;
}

/** The document's components with every schema read as the serializer must (see forSerializer, withoutNullUnions). */
function componentsForSerializer(components: unknown, resolve: (node: unknown) => unknown): unknown {
  if (!isObj(components)) return {};
  const schemas = isObj(components.schemas)
    ? Object.fromEntries(
        Object.entries(components.schemas).map(([name, schema]) => [name, withoutNullUnions(forSerializer(schema), resolve)]),
      )
    : undefined;
  return { ...components, ...(schemas !== undefined ? { schemas } : {}) };
}

function resolveRef(document: ApiDocument, node: unknown): unknown {
  let current = node;
  for (let hops = 0; isObj(current) && typeof current.$ref === 'string' && hops < 32; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, token) => (isObj(at) ? at[unescapePointerToken(token)] : undefined), document);
  }
  return current;
}

/** The response object a status selects: the exact key, else `NXX`, else `default`. */
function responseFor(document: ApiDocument, operation: OperationRoute, status: number): { key: string; response: Obj } | undefined {
  const item = (document.paths as Obj | undefined)?.[operation.path];
  const responses = isObj(item) && isObj(item[operation.method]) ? (item[operation.method] as Obj).responses : undefined;
  if (!isObj(responses)) return undefined;
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    const response = resolveRef(document, responses[key]);
    if (isObj(response)) return { key, response };
  }
  return undefined;
}

/** A value a response schema allows only from a list (`enum`, `const`), at a path of property names (`[]`: each item). */
interface ClosedValue {
  path: readonly string[];
  allowed: ReadonlySet<unknown>;
  pointer: string;
}

/**
 * D279: the `enum` and `const` values of a response schema, found once per compiled response (properties and array
 * items, through $refs and allOf; a oneOf/anyOf branch is not followed: which one applies is the validator's to say).
 * fast-json-stringify writes any string where the schema lists some: an out-of-contract status (`"SUCCESS"`) would reach
 * clients that switch on it. Checking these few paths costs a property walk per listed value, not a validation.
 */
function closedValues(document: ApiDocument, schema: unknown): ClosedValue[] {
  const out: ClosedValue[] = [];
  const walk = (node: unknown, path: string[], pointer: string, seen: ReadonlySet<unknown>): void => {
    let current = node;
    let at = pointer;
    for (let hops = 0; isObj(current) && typeof current.$ref === 'string' && hops < 32; hops++) {
      at = current.$ref;
      current = resolveRef(document, current);
    }
    if (!isObj(current) || seen.has(current) || path.length > 12) return;
    const inner = new Set(seen).add(current);
    if (Array.isArray(current.enum)) out.push({ path, allowed: new Set(current.enum), pointer: `${at}/enum` });
    else if (current.const !== undefined) out.push({ path, allowed: new Set([current.const]), pointer: `${at}/const` });
    if (Array.isArray(current.allOf)) current.allOf.forEach((part, i) => walk(part, path, `${at}/allOf/${i}`, inner));
    if (isObj(current.properties))
      for (const [name, child] of Object.entries(current.properties)) walk(child, [...path, name], `${at}/properties/${name}`, inner);
    if (current.items !== undefined) walk(current.items, [...path, '[]'], `${at}/items`, inner);
  };
  walk(schema, [], '#', new Set());
  return out;
}

/** The first value outside its list, with where it is (`data.status`), or undefined. */
function outOfContract(body: unknown, closed: readonly ClosedValue[]): { where: string; value: unknown; pointer: string } | undefined {
  for (const c of closed) {
    const visit = (node: unknown, i: number, where: string): { where: string; value: unknown; pointer: string } | undefined => {
      if (i === c.path.length)
        return node === undefined || node === null || c.allowed.has(node) ? undefined : { where, value: node, pointer: c.pointer };
      const key = c.path[i]!;
      if (key === '[]') {
        if (!Array.isArray(node)) return undefined;
        for (let n = 0; n < node.length; n++) {
          const found = visit(node[n], i + 1, `${where}[${n}]`);
          if (found) return found;
        }
        return undefined;
      }
      return isObj(node) ? visit(node[key], i + 1, where === '' ? key : `${where}.${key}`) : undefined;
    };
    const found = visit(body, 0, '');
    if (found) return found;
  }
  return undefined;
}

/** A handler's body holds a value its response schema does not list (D279 serializers check enum and const values): answered 500, never sent. */
export class ResponseContractError extends Error {
  override name = 'ResponseContractError';
}

export class ResponseSerializers {
  private readonly cache = new Map<string, Serialize | null>();
  private readonly closed = new Map<string, readonly ClosedValue[]>();
  private components: unknown;
  private readonly refused = new Set<string>();

  constructor(
    private readonly document: ApiDocument,
    private readonly logger: Logger,
  ) {}

  /** The compiled serializer of a JSON response, or null (no schema declared, or it could not be compiled). */
  serializer(operation: OperationRoute, status: number, contentType: string): Serialize | null {
    const cacheKey = `${operation.operationId} ${status} ${contentType}`;
    let compiled = this.cache.get(cacheKey);
    if (compiled === undefined) {
      compiled = this.compile(operation, status, contentType);
      this.cache.set(cacheKey, compiled);
    }
    return compiled;
  }

  /** The JSON text of a body: compiled when the spec declares its schema, else JSON.stringify. */
  stringify(operation: OperationRoute, status: number, contentType: string, body: unknown): string {
    const serialize = this.serializer(operation, status, contentType);
    const closed = this.closed.get(`${operation.operationId} ${status} ${contentType}`);
    const wrong = closed !== undefined && closed.length > 0 ? outOfContract(body, closed) : undefined;
    if (wrong !== undefined) {
      this.logger.error(
        { operationId: operation.operationId, status, where: wrong.where, pointer: wrong.pointer },
        `response ${status} of ${operation.operationId}: ${wrong.where} is ${JSON.stringify(wrong.value)}, not one of the values ${wrong.pointer} lists; answered 500 instead (D279)`,
      );
      throw new ResponseContractError(
        `${operation.operationId} ${status}: ${wrong.where} ${JSON.stringify(wrong.value)} is not in ${wrong.pointer}`,
      );
    }
    if (serialize === null) return JSON.stringify(body);
    try {
      return serialize(body);
    } catch (error) {
      const key = `${operation.operationId} ${status}`;
      if (!this.refused.has(key)) {
        this.refused.add(key);
        this.logger.error(
          { operationId: operation.operationId, status, err: error },
          `response ${status} of ${operation.operationId} does not fit its schema (${error instanceof Error ? error.message : String(error)}): sent with JSON.stringify`,
        );
      }
      return JSON.stringify(body);
    }
  }

  private compile(operation: OperationRoute, status: number, contentType: string): Serialize | null {
    const found = responseFor(this.document, operation, status);
    const content = found?.response.content;
    if (!isObj(content)) return null;
    const media = content[contentType] ?? content[contentType.split(';')[0]!.trim()];
    if (!isObj(media) || media.schema === undefined) return null;
    try {
      const resolve = (node: unknown) => resolveRef(this.document, node);
      this.components ??= componentsForSerializer(this.document.components, resolve);
      const schema = withoutNullUnions(forSerializer(media.schema), resolve) as Obj;
      this.closed.set(`${operation.operationId} ${status} ${contentType}`, closedValues(this.document, media.schema));
      return compiler()({ ...schema, components: this.components });
    } catch (error) {
      this.logger.warn(
        { operationId: operation.operationId, status: found!.key, contentType, err: error },
        `response ${found!.key} of ${operation.operationId} (${contentType}): its schema cannot be compiled (${error instanceof Error ? error.message : String(error)}); answered with JSON.stringify, undeclared properties included`,
      );
      return null;
    }
  }
}
