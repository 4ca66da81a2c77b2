/**
 * How the docs name a schema's type and describe a field, read from the typed schema nodes (D479 the API reference
 * reads typed schema nodes): one reading of refs, 3.0/3.1 nullability and type lists for every label. Each page keeps
 * its style: the reference (docs-reference.ts: operation pages, schemas.html) `typeLabel`, the events page
 * `eventFieldType`, the errors page `errorFieldType`; both of the latter describe a field by `fieldDescription`.
 */
import { derefNode, type ResolveNamed } from '../model/schema/shape.js';
import type { SchemaNode } from '../model/schema/types.js';

/** Unions and arrays are spelled out this many levels deep; below, a union is `any` and an array's items `items`. */
const MAX_LABEL_DEPTH = 3;
/** Enum values shown before `… (N)`. */
const ENUM_VALUES_SHOWN = 8;

const nullSuffix = (node: SchemaNode): string => (node.nullable ? ' | null' : '');

function enumLabel(values: readonly unknown[]): string {
  const shown = values.slice(0, ENUM_VALUES_SHOWN).map((v) => JSON.stringify(v));
  return `${shown.join(' | ')}${values.length > ENUM_VALUES_SHOWN ? ` | … (${values.length})` : ''}`;
}

/** A scalar type with its format: `string (date-time)`, `integer (int64)`, `boolean`, `object`, `any`. */
function scalarLabel(node: SchemaNode): string {
  switch (node.kind) {
    case 'string':
    case 'number':
    case 'integer':
      return node.format === undefined ? node.kind : `${node.kind} (${node.format})`;
    case 'boolean':
    case 'null':
    case 'object':
      return node.kind;
    default:
      return 'any';
  }
}

/**
 * The type of `node` as the reference shows it: `string (date-time)`, `integer (int64) | null`, `"a" | "b"`, `Order`
 * (a named schema, unless it is an enum or a const: then its values), `array of Payment`, `Card | BankAccount` (a
 * oneOf/anyOf), `object` (an allOf of several parts); `any` for a schema that restricts no type.
 */
export function typeLabel(node: SchemaNode | undefined, resolve: ResolveNamed, depth = 0): string {
  if (node === undefined) return 'any';
  switch (node.kind) {
    case 'ref': {
      const target = derefNode(node, resolve);
      // an enum's values say more than its name
      return target !== undefined && (target.kind === 'enum' || target.kind === 'const') ? typeLabel(target, resolve, depth) : node.name;
    }
    case 'const':
      return JSON.stringify(node.value);
    case 'enum':
      return enumLabel(node.values);
    case 'array':
      return `array of ${depth < MAX_LABEL_DEPTH ? typeLabel(node.items, resolve, depth + 1) : 'items'}`;
    case 'union':
      return unionLabel(node, resolve, depth);
    case 'allOf':
      return allOfLabel(node, resolve, depth);
    default:
      return `${scalarLabel(node)}${nullSuffix(node)}`;
  }
}

function unionLabel(node: Extract<SchemaNode, { kind: 'union' }>, resolve: ResolveNamed, depth: number): string {
  if (node.combinator === 'type') {
    // a 3.1 type list: an array among the types names the array, else every type (D477 one representation of nullability, number bounds and type lists)
    const array = node.variants.find((v) => v.kind === 'array');
    if (array !== undefined) return typeLabel(array, resolve, depth);
    return `${node.variants.map((v) => scalarLabel(v)).join(' | ')}${nullSuffix(node)}`;
  }
  if (depth < MAX_LABEL_DEPTH) return node.variants.map((v) => typeLabel(v, resolve, depth + 1)).join(' | ');
  return `any${nullSuffix(node)}`;
}

/**
 * An allOf node (D478 a schema's own keywords beside combinators become an allOf of its parts): a schema's own const, enum or union is its label; a single written `allOf` member without
 * fields of its own is that member's label (the 3.0 way of adding a description or `nullable` to a `$ref`); else the
 * own type (`object` when none).
 */
function allOfLabel(node: Extract<SchemaNode, { kind: 'allOf' }>, resolve: ResolveNamed, depth: number): string {
  const own = node.members.filter((m) => m.pointer === node.pointer);
  const written = node.members.filter((m) => m.pointer !== node.pointer);
  const values = own.find((m) => m.kind === 'const' || m.kind === 'enum');
  if (values !== undefined) return typeLabel(values, resolve, depth);
  const union = own.find((m) => m.kind === 'union' && m.combinator !== 'type');
  if (union !== undefined && depth < MAX_LABEL_DEPTH) return typeLabel(union, resolve, depth);
  const typed = own.find((m) => m.kind !== 'union' && m.kind !== 'not');
  const fields = typed?.kind === 'object' && typed.properties.length > 0;
  if (written.length === 1 && !fields) return typeLabel(written[0], resolve, depth);
  if (typed?.kind === 'array') return typeLabel(typed, resolve, depth);
  return `${typed === undefined ? 'object' : scalarLabel(typed)}${nullSuffix(node)}`;
}

/** The field's own description, else its named schema's; '' when neither has one. */
export function schemaDescription(node: SchemaNode | undefined, resolve: ResolveNamed): string {
  if (node === undefined) return '';
  return node.annotations.description ?? derefNode(node, resolve)?.annotations.description ?? '';
}

/**
 * The types the schema writes (its `type` keyword, or the type an enum or const is written with), without `null`:
 * what the events and errors pages show. A node whose type is implied by its keywords (`properties` alone) has it.
 */
function writtenTypes(node: SchemaNode): string[] {
  switch (node.kind) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
    case 'object':
    case 'array':
      return [node.kind];
    case 'enum':
    case 'const':
      return node.types;
    case 'union':
      return node.combinator === 'type' ? node.variants.map((v) => v.kind) : [];
    case 'allOf': {
      // the schema's own keywords are the member at its own pointer (D478 a schema's own keywords beside combinators become an allOf of its parts)
      const own = node.members.find((m) => m.pointer === node.pointer && m.kind !== 'not');
      return own === undefined ? [] : writtenTypes(own);
    }
    default:
      return [];
  }
}

/** The value(s) a schema allows when it is a const or an enum (its own, beside combinators too), else undefined. */
function allowedValues(node: SchemaNode): { const: unknown } | { enum: unknown[] } | undefined {
  if (node.kind === 'const') return { const: node.value };
  if (node.kind === 'enum') return { enum: node.values };
  if (node.kind !== 'allOf') return undefined;
  const own = node.members.find((m) => m.pointer === node.pointer && (m.kind === 'const' || m.kind === 'enum'));
  return own === undefined ? undefined : allowedValues(own);
}

/** A field type on the events page: `string`, `string | null`, `string (UUID)`, `object`; refs followed. */
export function eventFieldType(node: SchemaNode | undefined, resolve: ResolveNamed): string {
  const target = derefNode(node, resolve);
  if (target === undefined) return 'any';
  const types = writtenTypes(target);
  const values = allowedValues(target);
  const base =
    types.length > 0
      ? `${types.join(' | ')}${nullSuffix(target)}`
      : values !== undefined && 'const' in values
        ? typeof values.const
        : 'any';
  return (target.kind === 'string' || target.kind === 'number' || target.kind === 'integer') && target.format === 'uuid'
    ? `${base} (UUID)`
    : base;
}

/** A field type on the errors page: a named schema by its name, `array of X`, the written types, `object` for a combination. */
export function errorFieldType(node: SchemaNode | undefined, resolve: ResolveNamed): string {
  if (node?.kind === 'ref') return node.name;
  const target = derefNode(node, resolve);
  if (target === undefined) return 'any';
  const array = target.kind === 'array' ? target : target.kind === 'union' ? target.variants.find((v) => v.kind === 'array') : undefined;
  if (array?.kind === 'array') return `array of ${errorFieldType(array.items, resolve)}`;
  const types = writtenTypes(target);
  if (types.length > 0) return `${types.join(' | ')}${nullSuffix(target)}`;
  const values = allowedValues(target);
  if (values !== undefined && 'const' in values) return typeof values.const;
  return target.kind === 'union' || target.kind === 'allOf' ? 'object' : 'any';
}

/**
 * A field's description on the events and errors pages: its own, else its named schema's, else one its values give
 * (`Always \`x\`.`, `One of \`a\`, \`b\`.`); '' when there is none.
 */
export function fieldDescription(node: SchemaNode | undefined, resolve: ResolveNamed): string {
  const written = schemaDescription(node, resolve);
  if (written !== '') return written;
  const target = derefNode(node, resolve);
  const values = target === undefined ? undefined : allowedValues(target);
  if (values === undefined) return '';
  if ('const' in values) return `Always \`${String(values.const)}\`.`;
  return values.enum.length > 0 ? `One of ${values.enum.map((v) => `\`${String(v)}\``).join(', ')}.` : '';
}
