/**
 * The one walker of typed schema nodes (D475 typed schema model with one walker, a node beside every raw schema): every node with its path, before (`enter`) and after (`leave`) its
 * children; it stops at a `$ref` unless given the named nodes to follow it into (each name once per branch, so a
 * recursive schema ends).
 */
import type { SchemaNode } from './types.js';

/** Where a node sits below the walk's root: keyword tokens (`properties`, `name`, `items`, `oneOf`, `0`, ...). */
export type SchemaPath = readonly (string | number)[];

/** What `enter` may ask: `skip` this node's children, or `stop` the whole walk. */
export type WalkControl = 'skip' | 'stop' | undefined;

export interface SchemaVisitor {
  /** Pre-order: called before the node's children. */
  enter?(node: SchemaNode, path: SchemaPath): WalkControl;
  /** Post-order: called after them (not for a node whose `enter` returned `stop`). */
  leave?(node: SchemaNode, path: SchemaPath): void;
}

export interface WalkOptions {
  /**
   * Follow `$ref` nodes into the named node this returns (`ApiModel.schemas`' nodes by name). The target is visited as
   * the ref's child (path token `$ref`), unless its name is already being walked on this branch (a recursion).
   */
  resolve?: (name: string) => SchemaNode | undefined;
}

/** The direct children of a node with the path token(s) leading to each, in a stable order. */
export function childrenOf(node: SchemaNode): [SchemaPath, SchemaNode][] {
  switch (node.kind) {
    case 'object': {
      const out: [SchemaPath, SchemaNode][] = node.properties.map((p) => [['properties', p.name], p.node]);
      if (node.additionalProperties !== undefined) out.push([['additionalProperties'], node.additionalProperties]);
      for (const p of node.patternProperties) out.push([['patternProperties', p.pattern], p.node]);
      if (node.propertyNames !== undefined) out.push([['propertyNames'], node.propertyNames]);
      return out;
    }
    case 'array': {
      const out: [SchemaPath, SchemaNode][] = (node.prefixItems ?? []).map((n, i) => [['prefixItems', i], n]);
      if (node.items !== undefined) out.push([['items'], node.items]);
      if (node.contains !== undefined) out.push([['contains'], node.contains]);
      return out;
    }
    case 'union':
      return node.variants.map((n, i) => [[node.combinator === 'type' ? 'type' : node.combinator, i], n]);
    case 'allOf':
      return node.members.map((n, i) => [['allOf', i], n]);
    case 'not':
      return [[['not'], node.node]];
    default:
      return [];
  }
}

/** Walks `root` and everything below it (see {@link SchemaVisitor} and {@link WalkOptions}). */
export function walkSchema(root: SchemaNode, visitor: SchemaVisitor, options: WalkOptions = {}): void {
  const following = new Set<string>();
  let stopped = false;
  const visit = (node: SchemaNode, path: SchemaPath): void => {
    const control = visitor.enter?.(node, path);
    if (control === 'stop') {
      stopped = true;
      return;
    }
    if (control !== 'skip') {
      for (const [tokens, sub] of childrenOf(node)) {
        visit(sub, [...path, ...tokens]);
        if (stopped) return;
      }
      if (node.kind === 'ref' && options.resolve !== undefined && !following.has(node.name)) {
        const target = options.resolve(node.name);
        if (target !== undefined) {
          following.add(node.name);
          visit(target, [...path, '$ref']);
          following.delete(node.name);
          if (stopped) return;
        }
      }
    }
    visitor.leave?.(node, path);
  };
  visit(root, []);
}
