/** The one schema walker (D475 typed schema model with one walker, a node beside every raw schema): order, paths, refs followed only when asked, skip and stop. */
import { describe, expect, it } from 'vitest';
import { SchemaNodeBuilder } from './build.js';
import type { SchemaNode } from './types.js';
import { walkSchema, type SchemaPath } from './walk.js';

const doc = {
  components: {
    schemas: {
      Pet: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          owner: { $ref: '#/components/schemas/Owner' },
        },
        additionalProperties: { type: 'integer' },
      },
      Owner: { type: 'object', properties: { pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
      Shape: { oneOf: [{ type: 'string' }, { allOf: [{ type: 'object' }, { not: { type: 'null' } }] }] },
    },
  },
};
const builder = new SchemaNodeBuilder(doc);
const resolve = (name: string) => builder.namedNode(name);
const show = (node: SchemaNode, path: SchemaPath) => `${path.join('/') || '.'}:${node.kind}`;

describe('walkSchema', () => {
  it('visits every node with its path in pre-order, and stops at refs by default', () => {
    const seen: string[] = [];
    walkSchema(builder.namedNode('Pet')!, { enter: (node, path) => void seen.push(show(node, path)) });
    expect(seen).toEqual([
      '.:object',
      'properties/name:string',
      'properties/tags:array',
      'properties/tags/items:string',
      'properties/owner:ref',
      'additionalProperties:integer',
    ]);
  });

  it('calls leave in post-order', () => {
    const seen: string[] = [];
    walkSchema(builder.namedNode('Shape')!, { leave: (node, path) => void seen.push(show(node, path)) });
    expect(seen).toEqual([
      'oneOf/0:string',
      'oneOf/1/allOf/0:object',
      'oneOf/1/allOf/1/not:null',
      'oneOf/1/allOf/1:not',
      'oneOf/1:allOf',
      '.:union',
    ]);
  });

  it('follows refs when asked, each name once per branch (a recursion ends)', () => {
    const seen: string[] = [];
    walkSchema(
      builder.namedNode('Pet')!,
      { enter: (node, path) => void seen.push(show(node, path)) },
      { resolve: (name) => (name === 'Pet' ? undefined : resolve(name)) },
    );
    expect(seen).toContain('properties/owner/$ref/properties/pets/items:ref');
    const all: string[] = [];
    walkSchema(builder.namedNode('Pet')!, { enter: (node, path) => void all.push(show(node, path)) }, { resolve });
    // Pet -> Owner -> Pet (followed: Pet is the root, not a followed ref) -> Owner again is on the branch: stops there
    expect(all.filter((s) => s.endsWith(':ref'))).toEqual([
      'properties/owner:ref',
      'properties/owner/$ref/properties/pets/items:ref',
      'properties/owner/$ref/properties/pets/items/$ref/properties/owner:ref',
    ]);
  });

  it('skips a subtree on skip and ends the walk on stop', () => {
    const skipped: string[] = [];
    walkSchema(builder.namedNode('Pet')!, {
      enter: (node, path) => {
        skipped.push(show(node, path));
        return node.kind === 'array' ? 'skip' : undefined;
      },
    });
    expect(skipped).not.toContain('properties/tags/items:string');
    const stopped: string[] = [];
    const left: string[] = [];
    walkSchema(builder.namedNode('Pet')!, {
      enter: (node, path) => {
        stopped.push(show(node, path));
        return node.kind === 'array' ? 'stop' : undefined;
      },
      leave: (node, path) => void left.push(show(node, path)),
    });
    expect(stopped).toEqual(['.:object', 'properties/name:string', 'properties/tags:array']);
    expect(left).toEqual(['properties/name:string']);
  });
});
