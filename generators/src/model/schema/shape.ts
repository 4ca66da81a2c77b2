/**
 * Reading a typed schema (D475 typed schema model with one walker, a node beside every raw schema) the way a reader
 * of the document does: a `ref` node followed to the named node, and an object's fields with its `allOf` parts merged.
 * The node forms of `RefResolver.deref` and `RefResolver.objectShape` (model/build.ts), which read raw JSON.
 */
import type { SchemaNode } from './types.js';

/** The named node of a component schema (`ApiModel.schemas`' nodes by name), as `walkSchema`'s `resolve` takes it. */
export type ResolveNamed = (name: string) => SchemaNode | undefined;

/** A {@link ResolveNamed} over the model's component schemas. */
export function namedNodes(schemas: readonly { name: string; node: SchemaNode }[]): ResolveNamed {
  const byName = new Map<string, { node: SchemaNode }>(schemas.map((s) => [s.name, s]));
  // the model's nodes are built on first read (D475 typed schema model with one walker, a node beside every raw schema), so each is read only when a consumer reaches it
  return (name) => byName.get(name)?.node;
}

/** Refs chained deeper than this are a cycle of aliases (`A: {$ref: B}`, `B: {$ref: A}`): no target. */
const MAX_REF_CHAIN = 50;

/** `node` with `ref` nodes followed to the node they name; undefined for none, or a ref to no schema or a cycle of refs. */
export function derefNode(node: SchemaNode | undefined, resolve: ResolveNamed): SchemaNode | undefined {
  let current = node;
  for (let chain = 0; current?.kind === 'ref'; chain++) {
    if (chain >= MAX_REF_CHAIN) return undefined;
    current = resolve(current.name);
  }
  return current;
}

export interface ObjectShape {
  /** Each field's schema by name, in the order a merge of the written schema gives (see {@link objectShapeOf}). */
  properties: Map<string, SchemaNode>;
  /** Every name listed in a `required` of the object or of its `allOf` parts. */
  required: Set<string>;
}

/** An `allOf` this deep is not followed further (a chain of parts through refs). */
const MAX_ALLOF_DEPTH = 20;

/**
 * The fields of an object schema, refs followed: an `object` node's properties, and for an `allOf` node (D478 a
 * schema's own keywords beside combinators become an allOf of its parts) its `allOf` members' fields first, then its
 * own, a later definition of a name replacing an earlier one in its place (as `Object.assign` of the written schema
 * does). Unions and `not` add no fields: which variant holds is not known.
 */
export function objectShapeOf(node: SchemaNode | undefined, resolve: ResolveNamed): ObjectShape {
  const shape: ObjectShape = { properties: new Map(), required: new Set() };
  addShape(shape, node, resolve, 0);
  return shape;
}

function addShape(shape: ObjectShape, node: SchemaNode | undefined, resolve: ResolveNamed, depth: number): void {
  const target = derefNode(node, resolve);
  if (target === undefined || depth > MAX_ALLOF_DEPTH) return;
  if (target.kind === 'object') {
    for (const p of target.properties) shape.properties.set(p.name, p.node);
    for (const name of target.required) shape.required.add(name);
    return;
  }
  if (target.kind !== 'allOf') return;
  // the schema's own keywords are the member written at its own pointer (D478 a schema's own keywords beside combinators become an allOf of its parts); the written allOf members come first
  const own = target.members.filter((m) => m.pointer === target.pointer);
  for (const member of target.members) if (member.pointer !== target.pointer) addShape(shape, member, resolve, depth + 1);
  for (const member of own) if (member.kind === 'object') addShape(shape, member, resolve, depth + 1);
}
