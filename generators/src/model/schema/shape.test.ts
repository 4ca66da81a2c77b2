/** Refs followed and an object's fields with its allOf parts merged, on typed nodes (D475 typed schema model with one walker, a node beside every raw schema; D478 a schema's own keywords beside combinators become an allOf of its parts). */
import { describe, expect, it } from 'vitest';
import { SchemaNodeBuilder } from './build.js';
import { derefNode, namedNodes, objectShapeOf } from './shape.js';

const schemas = {
  Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, note: { type: 'string' } } },
  Child: {
    type: 'object',
    required: ['extra'],
    properties: { extra: { type: 'integer' }, note: { type: 'integer' } },
    allOf: [{ $ref: '#/components/schemas/Base' }, { oneOf: [{ properties: { never: {} } }] }],
  },
  A: { $ref: '#/components/schemas/B' },
  B: { $ref: '#/components/schemas/A' },
  Alias: { $ref: '#/components/schemas/Base' },
};
const builder = new SchemaNodeBuilder({ components: { schemas } });
const resolve = namedNodes(builder.namedSchemas());

describe('objectShapeOf', () => {
  it('merges allOf members first, then the own fields, a later one replacing an earlier in its place; unions add none', () => {
    const shape = objectShapeOf(resolve('Child'), resolve);
    expect([...shape.properties].map(([name, node]) => `${name}:${node.kind}`)).toEqual(['id:string', 'note:integer', 'extra:integer']);
    expect([...shape.required].sort()).toEqual(['extra', 'id']);
  });

  it('follows refs, and has no fields for what is no object', () => {
    expect([...objectShapeOf(builder.build({ $ref: '#/components/schemas/Alias' }, '#/x'), resolve).properties.keys()]).toEqual([
      'id',
      'note',
    ]);
    expect(objectShapeOf(builder.build({ type: 'string' }, '#/x'), resolve).properties.size).toBe(0);
    expect(objectShapeOf(undefined, resolve).properties.size).toBe(0);
  });
});

describe('derefNode', () => {
  it('follows a chain of refs to the named node, and gives none for a cycle of aliases', () => {
    expect(derefNode(resolve('Alias'), resolve)).toBe(resolve('Base'));
    expect(derefNode(resolve('A'), resolve)).toBeUndefined();
    expect(derefNode(builder.build({ type: 'string' }, '#/x'), resolve)?.kind).toBe('string');
  });
});
