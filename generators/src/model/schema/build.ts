/**
 * Raw JSON Schema (OpenAPI 3.0 or 3.1, bundled) -> typed nodes (./types.ts, D475). One builder per document: component
 * schemas are built once and referenced by name; a `$ref` anywhere else is inlined, once per target (D476 a ref to a named schema is a ref node, other refs copied in place).
 */
import { childPointer, isObj, pointerOf, pointerTokens, type JsonObject } from '../../util/json.js';
import { sortedEntries } from '../../util/sorted.js';
import { extensionsOf, str } from '../raw.js';
import type {
  Discriminator,
  DiscriminatorMapping,
  NamedSchemaNode,
  NumberNode,
  ObjectNode,
  SchemaAnnotations,
  SchemaNode,
  UnionNode,
} from './types.js';

/** What every node of one schema shares, before its kind is known. */
type Base = { pointer: string; nullable: boolean; annotations: SchemaAnnotations; extensions: Record<string, unknown> };

const SCALAR_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const COMPONENT_SCHEMAS = ['components', 'schemas'] as const;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The pointer of a component schema: `#/components/schemas/<escaped name>`. */
export const componentSchemaPointer = (name: string): string => `#${pointerOf([...COMPONENT_SCHEMAS, name])}`;

function annotationsOf(schema: JsonObject): SchemaAnnotations {
  const out: SchemaAnnotations = {};
  if (typeof schema.title === 'string') out.title = schema.title;
  if (typeof schema.description === 'string') out.description = schema.description;
  if (Object.hasOwn(schema, 'default')) out.default = schema.default;
  if (Array.isArray(schema.examples)) out.examples = [...schema.examples];
  else if (Object.hasOwn(schema, 'example')) out.examples = [schema.example];
  if (schema.deprecated === true) out.deprecated = true;
  if (schema.readOnly === true) out.readOnly = true;
  if (schema.writeOnly === true) out.writeOnly = true;
  return out;
}

const bare = (pointer: string): Base => ({ pointer, nullable: false, annotations: {}, extensions: {} });

/**
 * An inlined `$ref` target with the annotations written beside the `$ref` over its own (D476: sibling annotations are
 * kept, as on a ref node): `{ $ref: '#/$defs/currency', description: 'Currency of the refund' }` describes the field.
 */
function withSiblingAnnotations(node: SchemaNode, siblings: SchemaAnnotations): SchemaNode {
  return Object.keys(siblings).length === 0 ? node : { ...node, annotations: { ...node.annotations, ...siblings } };
}

/** The unescaped tokens of an internal `$ref` (percent-decoded, as a URI fragment is), or undefined for another document. */
function refTokens(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  return pointerTokens(ref).map((token) => {
    try {
      return decodeURIComponent(token);
    } catch {
      return token;
    }
  });
}

/** Builds typed nodes from one bundled document. */
export class SchemaNodeBuilder {
  private readonly components: JsonObject;
  private readonly named = new Map<string, SchemaNode>();
  /** Inlined `$ref` targets by pointer, kept when their build met no cycle (then it does not depend on the path). */
  private readonly inlined = new Map<string, SchemaNode>();
  /** Pointers of the inlined `$ref`s being built (a cycle through them ends in an `unknown` node). */
  private readonly refStack = new Set<string>();
  /** Raw objects being built: a parsed AsyncAPI document shares objects instead of `$ref`s, and may be cyclic. */
  private readonly objectStack = new Set<object>();
  private cuts = 0;

  constructor(private readonly document: JsonObject) {
    const components = isObj(document.components) ? document.components : {};
    this.components = isObj(components.schemas) ? components.schemas : {};
  }

  /** Every component schema as a named node, sorted by name (each built once). */
  namedSchemas(): NamedSchemaNode[] {
    return sortedEntries(this.components).map(([name]) => ({ name, ref: componentSchemaPointer(name), node: this.namedNode(name)! }));
  }

  /** The node of the component schema `name`, or undefined when the document has none of that name. */
  namedNode(name: string): SchemaNode | undefined {
    if (!Object.hasOwn(this.components, name)) return undefined;
    let node = this.named.get(name);
    if (node === undefined) {
      node = this.build(this.components[name], componentSchemaPointer(name));
      this.named.set(name, node);
    }
    return node;
  }

  /** The node of `schema`, written at `pointer` (a URI fragment: `#/paths/~1books/get/...`). */
  build(schema: unknown, pointer: string): SchemaNode {
    if (schema === false) return { kind: 'never', ...bare(pointer) };
    if (!isObj(schema)) return { kind: 'unknown', ...bare(pointer) };
    if (this.objectStack.has(schema)) {
      this.cuts += 1;
      return { kind: 'unknown', ...bare(pointer) };
    }
    this.objectStack.add(schema);
    try {
      return typeof schema.$ref === 'string' ? this.ref(schema, schema.$ref, pointer) : this.schema(schema, pointer);
    } finally {
      this.objectStack.delete(schema);
    }
  }

  /** A `$ref`: a {@link RefNode} to a component schema, else its target inlined (sibling keywords: annotations only). */
  private ref(schema: JsonObject, ref: string, pointer: string): SchemaNode {
    const tokens = refTokens(ref);
    const base: Base = { pointer, nullable: false, annotations: annotationsOf(schema), extensions: extensionsOf(schema) };
    if (tokens === undefined) return { kind: 'unknown', ...base };
    const name = this.componentName(tokens);
    if (name !== undefined) return { kind: 'ref', ...base, name, ref: componentSchemaPointer(name) };
    const target = `#${pointerOf(tokens)}`;
    const cached = this.inlined.get(target);
    if (cached !== undefined) return withSiblingAnnotations(cached, base.annotations);
    if (this.refStack.has(target)) {
      this.cuts += 1;
      return { kind: 'unknown', ...base };
    }
    const raw = this.at(tokens);
    if (raw === undefined) return { kind: 'unknown', ...base };
    const cutsBefore = this.cuts;
    this.refStack.add(target);
    try {
      const node = this.build(raw, target);
      if (this.cuts === cutsBefore) this.inlined.set(target, node);
      return withSiblingAnnotations(node, base.annotations);
    } finally {
      this.refStack.delete(target);
    }
  }

  private componentName(tokens: readonly string[]): string | undefined {
    if (tokens.length !== 3 || tokens[0] !== COMPONENT_SCHEMAS[0] || tokens[1] !== COMPONENT_SCHEMAS[1]) return undefined;
    return Object.hasOwn(this.components, tokens[2]!) ? tokens[2] : undefined;
  }

  private at(tokens: readonly string[]): unknown {
    let node: unknown = this.document;
    for (const token of tokens) {
      if (Array.isArray(node)) node = node[Number(token)];
      else if (isObj(node) && Object.hasOwn(node, token)) node = node[token];
      else return undefined;
    }
    return node;
  }

  private schema(schema: JsonObject, pointer: string): SchemaNode {
    const types = Array.isArray(schema.type)
      ? schema.type.filter((t): t is string => typeof t === 'string')
      : typeof schema.type === 'string'
        ? [schema.type]
        : [];
    const nonNull = types.filter((t) => t !== 'null');
    const base: Base = {
      pointer,
      // Nullability, one representation (D477 one representation of nullability, number bounds and type lists): 3.0 `nullable: true` and a 3.1 type array with 'null' beside other types
      nullable: schema.nullable === true || (types.includes('null') && nonNull.length > 0),
      annotations: annotationsOf(schema),
      extensions: extensionsOf(schema),
    };
    const own = this.own(schema, pointer, types, nonNull);
    const allOf = Array.isArray(schema.allOf) ? schema.allOf.map((s, i) => this.build(s, childPointer(pointer, 'allOf', i))) : [];
    const oneOf = this.union(schema, 'oneOf', pointer);
    const anyOf = this.union(schema, 'anyOf', pointer);
    const not = Object.hasOwn(schema, 'not') ? this.build(schema.not, childPointer(pointer, 'not')) : undefined;
    const discriminator = this.discriminator(schema.discriminator, (oneOf ?? anyOf)?.variants ?? []);
    if (discriminator !== undefined) {
      if (oneOf !== undefined) oneOf.discriminator = discriminator;
      else if (anyOf !== undefined) anyOf.discriminator = discriminator;
      else if (own?.kind === 'object') own.discriminator = discriminator;
    }
    const combinators = allOf.length + (oneOf === undefined ? 0 : 1) + (anyOf === undefined ? 0 : 1) + (not === undefined ? 0 : 1);
    if (combinators === 0) return own === undefined ? { kind: 'unknown', ...base } : { ...own, ...base };
    if (own === undefined && allOf.length === 0 && combinators === 1) {
      // one combinator alone is the node itself
      if (oneOf !== undefined) return { ...oneOf, ...base };
      if (anyOf !== undefined) return { ...anyOf, ...base };
      return { kind: 'not', ...base, node: not! };
    }
    // Own keywords beside combinators: every part holds (D478 a schema's own keywords beside combinators become an allOf of its parts)
    const members: SchemaNode[] = [];
    if (own !== undefined) members.push(own);
    members.push(...allOf);
    if (oneOf !== undefined) members.push(oneOf);
    if (anyOf !== undefined) members.push(anyOf);
    if (not !== undefined) members.push({ kind: 'not', ...bare(pointer), node: not });
    return { kind: 'allOf', ...base, members };
  }

  private union(schema: JsonObject, combinator: 'oneOf' | 'anyOf', pointer: string): UnionNode | undefined {
    const list = schema[combinator];
    if (!Array.isArray(list) || list.length === 0) return undefined;
    return {
      kind: 'union',
      ...bare(pointer),
      combinator,
      variants: list.map((s, i) => this.build(s, childPointer(pointer, combinator, i))),
      discriminator: undefined,
    };
  }

  /** The schema's own keywords (const, enum, its type's keywords) as a node without annotations, or undefined. */
  private own(schema: JsonObject, pointer: string, types: readonly string[], nonNull: readonly string[]): SchemaNode | undefined {
    if (Object.hasOwn(schema, 'const')) return { kind: 'const', ...bare(pointer), value: schema.const, types: [...nonNull] };
    if (Array.isArray(schema.enum)) return { kind: 'enum', ...bare(pointer), values: [...schema.enum], types: [...nonNull] };
    if (types.length > 0 && nonNull.length === 0) return { kind: 'null', ...bare(pointer) };
    const known = nonNull.filter((t) => SCALAR_TYPES.has(t));
    if (known.length > 1) {
      // a 3.1 type array of several types: one variant per type, each with that type's keywords
      return {
        kind: 'union',
        ...bare(pointer),
        combinator: 'type',
        variants: known.map((t) => this.typed(schema, t, pointer)!),
        discriminator: undefined,
      };
    }
    if (known.length === 1) return this.typed(schema, known[0]!, pointer);
    if (nonNull.length > 0) return undefined;
    // no `type`: what the keywords imply
    if (['properties', 'additionalProperties', 'patternProperties', 'required'].some((k) => Object.hasOwn(schema, k)))
      return this.typed(schema, 'object', pointer);
    if (Object.hasOwn(schema, 'items') || Object.hasOwn(schema, 'prefixItems')) return this.typed(schema, 'array', pointer);
    return undefined;
  }

  private typed(schema: JsonObject, type: string, pointer: string): SchemaNode | undefined {
    switch (type) {
      case 'object':
        return this.object(schema, pointer);
      case 'array':
        return this.array(schema, pointer);
      case 'string':
        return {
          kind: 'string',
          ...bare(pointer),
          format: str(schema.format),
          minLength: num(schema.minLength),
          maxLength: num(schema.maxLength),
          pattern: str(schema.pattern),
          contentMediaType: str(schema.contentMediaType),
          contentEncoding: str(schema.contentEncoding),
        };
      case 'number':
      case 'integer':
        return this.number(schema, type, pointer);
      case 'boolean':
        return { kind: 'boolean', ...bare(pointer) };
      case 'null':
        return { kind: 'null', ...bare(pointer) };
      default:
        return undefined;
    }
  }

  private object(schema: JsonObject, pointer: string): ObjectNode {
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
    const requiredSet = new Set(required);
    const properties = isObj(schema.properties) ? Object.entries(schema.properties) : [];
    const patterns = isObj(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    return {
      kind: 'object',
      ...bare(pointer),
      properties: properties.map(([name, sub]) => ({
        name,
        required: requiredSet.has(name),
        node: this.build(sub, childPointer(pointer, 'properties', name)),
      })),
      required,
      additionalProperties:
        schema.additionalProperties === undefined
          ? undefined
          : this.build(schema.additionalProperties, childPointer(pointer, 'additionalProperties')),
      patternProperties: patterns.map(([pattern, sub]) => ({
        pattern,
        node: this.build(sub, childPointer(pointer, 'patternProperties', pattern)),
      })),
      propertyNames:
        schema.propertyNames === undefined ? undefined : this.build(schema.propertyNames, childPointer(pointer, 'propertyNames')),
      minProperties: num(schema.minProperties),
      maxProperties: num(schema.maxProperties),
      discriminator: undefined,
    };
  }

  private array(schema: JsonObject, pointer: string) {
    // draft-04 tuples (`items` as a list, `additionalItems` for the rest) are 2020-12's prefixItems/items
    const tuple = Array.isArray(schema.items);
    const prefixKey = tuple ? 'items' : 'prefixItems';
    const prefix = schema[prefixKey];
    const restKey = tuple ? 'additionalItems' : 'items';
    const rest = schema[restKey];
    return {
      kind: 'array' as const,
      ...bare(pointer),
      items: rest === undefined ? undefined : this.build(rest, childPointer(pointer, restKey)),
      prefixItems: Array.isArray(prefix) ? prefix.map((s, i) => this.build(s, childPointer(pointer, prefixKey, i))) : undefined,
      minItems: num(schema.minItems),
      maxItems: num(schema.maxItems),
      uniqueItems: schema.uniqueItems === true,
      contains: schema.contains === undefined ? undefined : this.build(schema.contains, childPointer(pointer, 'contains')),
    };
  }

  private number(schema: JsonObject, kind: 'number' | 'integer', pointer: string): NumberNode {
    // 3.0 writes an exclusive bound as a boolean beside minimum/maximum; 3.1 as a number of its own (D477 one representation of nullability, number bounds and type lists)
    const lower = schema.exclusiveMinimum === true ? { exclusive: num(schema.minimum), inclusive: undefined } : undefined;
    const upper = schema.exclusiveMaximum === true ? { exclusive: num(schema.maximum), inclusive: undefined } : undefined;
    return {
      kind,
      ...bare(pointer),
      format: str(schema.format),
      minimum: lower === undefined ? num(schema.minimum) : lower.inclusive,
      maximum: upper === undefined ? num(schema.maximum) : upper.inclusive,
      exclusiveMinimum: lower === undefined ? num(schema.exclusiveMinimum) : lower.exclusive,
      exclusiveMaximum: upper === undefined ? num(schema.exclusiveMaximum) : upper.exclusive,
      multipleOf: num(schema.multipleOf),
    };
  }

  /** The discriminator: its declared mapping resolved to component names, then the implicit values of `$ref` variants. */
  private discriminator(raw: unknown, variants: readonly SchemaNode[]): Discriminator | undefined {
    if (!isObj(raw) || typeof raw.propertyName !== 'string') return undefined;
    const mapping: DiscriminatorMapping[] = [];
    for (const [value, target] of Object.entries(isObj(raw.mapping) ? raw.mapping : {})) {
      if (typeof target !== 'string') continue;
      // a mapping value is a `$ref` or, when it has no `#` or `/`, a component schema's name
      const tokens = /^[^#/]+$/.test(target) ? [...COMPONENT_SCHEMAS, target] : refTokens(target);
      const name = tokens === undefined ? undefined : this.componentName(tokens);
      mapping.push({ value, name, ref: name === undefined ? target : componentSchemaPointer(name), declared: true });
    }
    const mapped = new Set(mapping.map((m) => m.name));
    for (const variant of variants) {
      if (variant.kind !== 'ref' || mapped.has(variant.name)) continue;
      mapped.add(variant.name);
      mapping.push({ value: variant.name, name: variant.name, ref: variant.ref, declared: false });
    }
    return { propertyName: raw.propertyName, mapping };
  }
}

/**
 * Gives `target` its `node`, built by `build` when first read and kept (D475 typed schema model with one walker, a node beside every raw schema): a run whose emitters read no node
 * (Paygate's own, today) pays nothing for them. Not enumerable, so JSON.stringify of a model part (a cache's digest)
 * neither builds nor serialises the nodes, and a spread copy leaves it out; a node itself is plain data (no cycles).
 */
export function withLazyNode<T extends { node: unknown }>(target: T, build: () => T['node']): T {
  let built = false;
  let node: T['node'];
  Object.defineProperty(target, 'node', {
    enumerable: false,
    configurable: true,
    get: () => {
      if (!built) {
        node = build();
        built = true;
      }
      return node;
    },
  });
  return target;
}

/** The typed node of one schema of `document` (a builder of its own: use a {@link SchemaNodeBuilder} for many). */
export function buildSchemaNode(document: JsonObject, schema: unknown, pointer: string): SchemaNode {
  return new SchemaNodeBuilder(document).build(schema, pointer);
}
