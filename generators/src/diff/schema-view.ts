/**
 * A schema as the comparer sees it (D103 versions compared by meaning after normalisation): `$ref`s followed to what they point to, `allOf` members (and a one-armed
 * `anyOf`/`oneOf`) merged into one set of constraints, OpenAPI 3.0 `nullable` and 3.1 `type: [..., 'null']` (or a
 * `{type: 'null'}` alternative) read as the same thing, boolean `exclusiveMaximum` read as the numeric one, annotations
 * kept apart. Every constraint remembers the pointer it is defined at, which is where a change to it is reported.
 */
import { deepEqual, isObj, join, type Located, type Obj, type SpecDoc } from './document.js';

export const ANNOTATIONS = new Set([
  'description',
  'title',
  'summary',
  'examples',
  'example',
  'deprecated',
  'externalDocs',
  '$comment',
  'xml',
  'discriminator',
]);
/** Containers and identifiers: not constraints of the value. */
const IGNORED = new Set(['$ref', '$id', '$schema', '$anchor', '$dynamicAnchor', '$defs', 'definitions', 'components', 'nullable', 'id']);
const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'format',
  'pattern',
  'allOf',
  'anyOf',
  'oneOf',
  'default',
  'readOnly',
  'writeOnly',
  'maxLength',
  'minLength',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'multipleOf',
  'uniqueItems',
]);

export const UPPER_BOUNDS = ['maxLength', 'maximum', 'maxItems', 'maxProperties'] as const;
export const LOWER_BOUNDS = ['minLength', 'minimum', 'minItems', 'minProperties'] as const;
export type BoundName = (typeof UPPER_BOUNDS)[number] | (typeof LOWER_BOUNDS)[number];

export interface Bound {
  value: number;
  exclusive: boolean;
  ptr: string;
  /** The keyword that set it (`exclusiveMaximum` for a numeric exclusive bound). */
  keyword: string;
}

export interface PropertyView {
  /** Pointer of the property entry (`.../properties/<name>`), first definition. */
  ptr: string;
  srcs: Located[];
  readOnly: boolean;
  writeOnly: boolean;
}

export interface SchemaView {
  ptr: string;
  /** Pointers of every definition merged into the view (the schema, its `$ref` targets, its `allOf` members). */
  sources: Set<string>;
  /** `false` schema: nothing is valid. */
  never: boolean;
  /** Non-null types allowed (undefined: any), and the pointer of the `type` keyword. */
  types: Set<string> | undefined;
  typePtr: string | undefined;
  /** Whether null is allowed, and the pointer that says so (`nullable`, `type`, a null alternative). */
  nullable: boolean;
  nullablePtr: string | undefined;
  nullableKeyword: 'nullable' | 'type' | 'alternative' | undefined;
  properties: Map<string, PropertyView>;
  /** Required property name -> pointer of its `required` item. */
  required: Map<string, string>;
  /** Pointer of `additionalProperties: false`, when closed. */
  closed: string | undefined;
  additional: { srcs: Located[]; ptr: string } | undefined;
  additionalPtr: string | undefined;
  items: { srcs: Located[]; ptr: string } | undefined;
  /** Allowed values; `ptrs[i]` is where value i is defined when they come from several places (alternatives). */
  enumeration: { values: unknown[]; ptr: string; isConst: boolean; ptrs?: string[] } | undefined;
  format: { value: string; ptr: string } | undefined;
  patterns: Map<string, string>;
  bounds: Map<BoundName, Bound>;
  multipleOf: { value: number; ptr: string } | undefined;
  uniqueItems: string | undefined;
  alternatives: { keyword: 'anyOf' | 'oneOf'; ptr: string; srcs: Located[] } | undefined;
  defaultValue: { value: unknown; ptr: string } | undefined;
  readOnly: boolean;
  writeOnly: boolean;
  readOnlyPtr: string | undefined;
  writeOnlyPtr: string | undefined;
  annotations: Map<string, { value: unknown; ptr: string }>;
  /** Keywords the comparer does not model: a change to one is unclassified. */
  other: Map<string, { value: unknown; ptr: string }>;
}

const isNullSchema = (node: unknown) =>
  isObj(node) &&
  (node.type === 'null' ||
    (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'null') ||
    (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null && node.type === undefined));

function emptyView(ptr: string): SchemaView {
  return {
    ptr,
    sources: new Set(),
    never: false,
    types: undefined,
    typePtr: undefined,
    nullable: false,
    nullablePtr: undefined,
    nullableKeyword: undefined,
    properties: new Map(),
    required: new Map(),
    closed: undefined,
    additional: undefined,
    additionalPtr: undefined,
    items: undefined,
    enumeration: undefined,
    format: undefined,
    patterns: new Map(),
    bounds: new Map(),
    multipleOf: undefined,
    uniqueItems: undefined,
    alternatives: undefined,
    defaultValue: undefined,
    readOnly: false,
    writeOnly: false,
    readOnlyPtr: undefined,
    writeOnlyPtr: undefined,
    annotations: new Map(),
    other: new Map(),
  };
}

const MAX_DEPTH = 64;

/** The merged view of one or more schema nodes (already resolved). */
export function viewOf(doc: SpecDoc, srcs: readonly Located[]): SchemaView {
  const view = emptyView(srcs[0]?.ptr ?? '');
  const visited = new Set<string>();
  let declaredNullTypes = false;
  const add = (src: Located, depth: number, outer: boolean) => {
    if (depth > MAX_DEPTH || visited.has(src.ptr)) return;
    visited.add(src.ptr);
    view.sources.add(src.ptr);
    const node = src.node;
    if (node === false) {
      view.never = true;
      return;
    }
    if (!isObj(node)) return;
    const ptr = src.ptr;
    if (typeof node.$ref === 'string') {
      const target = doc.refTarget(node);
      if (target) add(target, depth + 1, false);
    }
    // type
    if (node.type !== undefined) {
      const list = (Array.isArray(node.type) ? node.type : [node.type]).map(String);
      const nonNull = new Set(list.filter((t) => t !== 'null'));
      if (list.includes('null')) {
        view.nullable = true;
        view.nullablePtr ??= join(ptr, 'type');
        view.nullableKeyword ??= 'type';
      } else if (!declaredNullTypes && nonNull.size > 0 && view.nullableKeyword === 'type') {
        // an allOf member without null narrows a member with it; rare enough to read as the union, as authors mean it
      }
      declaredNullTypes = true;
      if (view.types === undefined) {
        view.types = nonNull;
        view.typePtr = join(ptr, 'type');
      } else {
        const merged = new Set([...view.types].filter((t) => nonNull.has(t) || (t === 'integer' && nonNull.has('number'))));
        for (const t of nonNull) if (t === 'integer' && view.types.has('number')) merged.add('integer');
        view.types = merged;
      }
    }
    if (node.nullable === true) {
      view.nullable = true;
      view.nullablePtr ??= join(ptr, 'nullable');
      view.nullableKeyword ??= 'nullable';
    }
    if (isObj(node.properties)) {
      for (const [name, value] of Object.entries(node.properties)) {
        const at = join(ptr, 'properties', name);
        const resolved = doc.resolve(value, at);
        const flags = isObj(resolved.node) ? resolved.node : {};
        const existing = view.properties.get(name);
        if (existing) {
          existing.srcs.push(resolved);
          existing.readOnly ||= flags.readOnly === true;
          existing.writeOnly ||= flags.writeOnly === true;
        } else {
          view.properties.set(name, { ptr: at, srcs: [resolved], readOnly: flags.readOnly === true, writeOnly: flags.writeOnly === true });
        }
      }
    }
    if (Array.isArray(node.required)) {
      node.required.forEach((name, i) => {
        if (typeof name === 'string' && !view.required.has(name)) view.required.set(name, join(ptr, 'required', i));
      });
    }
    if (node.additionalProperties === false) view.closed ??= join(ptr, 'additionalProperties');
    else if (isObj(node.additionalProperties) && Object.keys(node.additionalProperties).length > 0) {
      const at = join(ptr, 'additionalProperties');
      const resolved = doc.resolve(node.additionalProperties, at);
      if (view.additional) view.additional.srcs.push(resolved);
      else view.additional = { srcs: [resolved], ptr: at };
    }
    if (node.additionalProperties !== undefined) view.additionalPtr ??= join(ptr, 'additionalProperties');
    if (node.items !== undefined && !Array.isArray(node.items)) {
      const at = join(ptr, 'items');
      const resolved = doc.resolve(node.items, at);
      if (view.items) view.items.srcs.push(resolved);
      else view.items = { srcs: [resolved], ptr: at };
    } else if (Array.isArray(node.items)) view.other.set('items', { value: node.items, ptr: join(ptr, 'items') });
    if (node.const !== undefined) view.enumeration = { values: [node.const], ptr: join(ptr, 'const'), isConst: true };
    else if (Array.isArray(node.enum)) {
      const values = node.enum.filter((v) => v !== null || !view.nullable);
      if (view.enumeration === undefined) view.enumeration = { values: node.enum, ptr: join(ptr, 'enum'), isConst: false };
      else view.enumeration = { ...view.enumeration, values: view.enumeration.values.filter((v) => values.some((w) => deepEqual(v, w))) };
    }
    if (typeof node.format === 'string') view.format ??= { value: node.format, ptr: join(ptr, 'format') };
    if (typeof node.pattern === 'string') view.patterns.set(node.pattern, join(ptr, 'pattern'));
    boundsOf(node, ptr, view);
    if (typeof node.multipleOf === 'number') view.multipleOf ??= { value: node.multipleOf, ptr: join(ptr, 'multipleOf') };
    if (node.uniqueItems === true) view.uniqueItems ??= join(ptr, 'uniqueItems');
    if (node.default !== undefined) view.defaultValue ??= { value: node.default, ptr: join(ptr, 'default') };
    if (node.readOnly === true) {
      view.readOnly = true;
      view.readOnlyPtr ??= join(ptr, 'readOnly');
    }
    if (node.writeOnly === true) {
      view.writeOnly = true;
      view.writeOnlyPtr ??= join(ptr, 'writeOnly');
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const list = node[keyword];
      if (!Array.isArray(list)) continue;
      const alternatives: Located[] = [];
      list.forEach((member, i) => {
        const resolved = doc.resolve(member, join(ptr, keyword, i));
        if (isNullSchema(resolved.node)) {
          view.nullable = true;
          view.nullablePtr ??= resolved.ptr;
          view.nullableKeyword ??= 'alternative';
        } else alternatives.push(resolved);
      });
      // one arm left (`anyOf: [X]`, `oneOf: [X, {type: 'null'}]`): the same as X
      if (alternatives.length === 1) add(alternatives[0]!, depth + 1, false);
      else if (alternatives.length > 1 && view.enumeration === undefined && enumOnly(doc, alternatives)) {
        // `oneOf: [{enum: [a]}, {enum: [b]}]` is `enum: [a, b]`
        const values: unknown[] = [];
        const ptrs: string[] = [];
        const types = new Set<string>();
        for (const alt of alternatives) {
          const v = viewOf(doc, [alt]);
          for (const t of v.types ?? []) types.add(t);
          v.enumeration!.values.forEach((value, i) => {
            values.push(value);
            ptrs.push(v.enumeration!.isConst ? v.enumeration!.ptr : join(v.enumeration!.ptr, i));
          });
        }
        view.enumeration = { values, ptr: join(ptr, keyword), isConst: false, ptrs };
        if (view.types === undefined && types.size > 0) {
          view.types = types;
          view.typePtr = join(ptr, keyword);
        }
      } else if (alternatives.length > 1 && view.alternatives === undefined)
        view.alternatives = { keyword, ptr: join(ptr, keyword), srcs: alternatives };
      else if (alternatives.length > 1) view.other.set(keyword, { value: list, ptr: join(ptr, keyword) });
    }
    if (Array.isArray(node.allOf)) node.allOf.forEach((member, i) => add(doc.resolve(member, join(ptr, 'allOf', i)), depth + 1, false));
    for (const [key, value] of Object.entries(node)) {
      if (HANDLED.has(key) || IGNORED.has(key)) continue;
      if (ANNOTATIONS.has(key) || key.startsWith('x-')) {
        // the outermost node's annotation is the one a reader sees
        if (!view.annotations.has(key) || outer) view.annotations.set(key, { value, ptr: join(ptr, key) });
        continue;
      }
      if (!view.other.has(key)) view.other.set(key, { value, ptr: join(ptr, key) });
    }
  };
  srcs.forEach((s, i) => add(s, 0, i === 0));
  if (view.types === undefined) {
    // a schema that only names properties or items describes an object or an array
    if (view.properties.size > 0 || view.closed !== undefined || view.additional !== undefined) view.types = new Set(['object']);
    else if (view.items !== undefined) view.types = new Set(['array']);
  }
  return view;
}

function boundsOf(node: Obj, ptr: string, view: SchemaView): void {
  const set = (name: BoundName, bound: Bound, upper: boolean) => {
    const current = view.bounds.get(name);
    const tighter =
      current === undefined ||
      (upper ? bound.value < current.value : bound.value > current.value) ||
      (bound.value === current.value && bound.exclusive && !current.exclusive);
    if (tighter) view.bounds.set(name, bound);
  };
  for (const name of ['maxLength', 'maxItems', 'maxProperties'] as const)
    if (typeof node[name] === 'number')
      set(name, { value: node[name] as number, exclusive: false, ptr: join(ptr, name), keyword: name }, true);
  for (const name of ['minLength', 'minItems', 'minProperties'] as const)
    if (typeof node[name] === 'number')
      set(name, { value: node[name] as number, exclusive: false, ptr: join(ptr, name), keyword: name }, false);
  for (const [name, exclusiveName, upper] of [
    ['maximum', 'exclusiveMaximum', true],
    ['minimum', 'exclusiveMinimum', false],
  ] as const) {
    const exclusive = node[exclusiveName];
    if (typeof node[name] === 'number')
      set(name, { value: node[name] as number, exclusive: exclusive === true, ptr: join(ptr, name), keyword: name }, upper);
    if (typeof exclusive === 'number')
      set(name, { value: exclusive, exclusive: true, ptr: join(ptr, exclusiveName), keyword: exclusiveName }, upper);
  }
}

function enumOnly(doc: SpecDoc, alternatives: readonly Located[]): boolean {
  return alternatives.every((alt) => {
    const v = viewOf(doc, [alt]);
    return v.enumeration !== undefined && v.properties.size === 0 && v.alternatives === undefined && v.items === undefined;
  });
}

/** The shape of a view, for matching alternatives: types, values, property names. */
export function signature(view: SchemaView): string {
  const types = view.types === undefined ? '*' : [...view.types].sort().join(',');
  const enumeration = view.enumeration === undefined ? '' : `=${JSON.stringify(view.enumeration.values.slice(0, 3))}`;
  const names = [...view.properties.keys()].sort().slice(0, 8).join(',');
  return `${types}${enumeration}{${names}}`;
}

/** The first component schema a view is made of (`allOf: [$ref Creation, $ref Info]` is Creation). */
export function primaryComponent(view: SchemaView): string | undefined {
  for (const source of view.sources) {
    const match = /^\/components\/schemas\/([^/]+)$/.exec(source);
    if (match) return match[1];
  }
  return undefined;
}

/** A tagged union's tag: the properties whose value is fixed (`type: {enum: ['creation']}`). */
export function tagOf(doc: SpecDoc, view: SchemaView): string {
  const tags: string[] = [];
  for (const [name, p] of view.properties) {
    const v = viewOf(doc, p.srcs);
    if (v.enumeration?.values.length === 1) tags.push(`${name}=${JSON.stringify(v.enumeration.values[0])}`);
  }
  return tags.sort().join('&');
}

/** A view that only constrains which properties are present (`oneOf: [{required: [id]}, {required: [owner]}]`). */
export function constraintOnly(view: SchemaView): boolean {
  return (
    view.types === undefined &&
    view.properties.size === 0 &&
    view.enumeration === undefined &&
    view.alternatives === undefined &&
    view.items === undefined
  );
}
