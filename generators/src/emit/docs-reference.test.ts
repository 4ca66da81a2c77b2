/** The reference's field tables, read from typed nodes (D475 typed schema model with one walker, a node beside every raw schema): nesting, arrays, allOf parts, recursion. */
import { describe, expect, it } from 'vitest';
import { SchemaNodeBuilder } from '../model/schema/build.js';
import { namedNodes } from '../model/schema/shape.js';
import { fieldRows } from './docs-reference.js';

const schemas = {
  Node: {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', description: 'The **id**' },
      children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
    },
  },
  Tagged: {
    allOf: [{ $ref: '#/components/schemas/Node' }],
    properties: {
      // 3.1: a nullable array of objects is expanded as 3.0's `nullable: true` one is (D477 one representation of nullability, number bounds and type lists)
      tags: { type: ['array', 'null'], items: { type: 'object', properties: { name: { type: 'string' } } } },
      owner: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
    },
  },
};
const builder = new SchemaNodeBuilder({ components: { schemas } });
const resolve = namedNodes(builder.namedSchemas());
const rows = (name: string) =>
  fieldRows(resolve(name), resolve).map((r) => `${'  '.repeat(r.depth)}${r.name}: ${r.type}${r.required ? ' (required)' : ''}`);

describe('fieldRows', () => {
  it('lists fields with their nested objects and array items, a schema met again on its branch once', () => {
    expect(rows('Node')).toEqual(['id: string (required)', 'children: array of Node']);
    expect(fieldRows(resolve('Node'), resolve)[0]!.descriptionHtml).toBe('<p>The <strong>id</strong></p>');
  });

  it('merges allOf parts before the own fields', () => {
    expect(rows('Tagged')).toEqual([
      'id: string (required)',
      'children: array of Node',
      '  children[].id: string (required)',
      '  children[].children: array of Node',
      'tags: array of object',
      '  tags[].name: string',
      'owner: object',
      '  owner.email: string (email)',
    ]);
  });

  it('has no rows without a schema', () => {
    expect(fieldRows(undefined, resolve)).toEqual([]);
  });
});
