/** The reference's type labels and descriptions, read from typed nodes (D475 typed schema model with one walker, a node beside every raw schema): one row per schema shape. */
import { describe, expect, it } from 'vitest';
import { SchemaNodeBuilder } from '../model/schema/build.js';
import { errorFieldType, eventFieldType, fieldDescription, schemaDescription, typeLabel } from './docs-schema-labels.js';

const components = {
  Order: { type: 'object', properties: { id: { type: 'string' } } },
  Status: { type: 'string', enum: ['open', 'paid'] },
  Kind: { const: 'order' },
  Alias: { $ref: '#/components/schemas/Order' },
  Money: { type: 'object', properties: { currency: { type: 'string', format: 'iso-4217', description: 'ISO 4217' } } },
};
const builder = new SchemaNodeBuilder({ components: { schemas: components } });
const resolve = (name: string) => builder.namedNode(name);
const label = (schema: unknown) => typeLabel(builder.build(schema, '#/x'), resolve);
const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);

describe('typeLabel', () => {
  it.each<[string, unknown, string]>([
    ['a string with its format', { type: 'string', format: 'date-time' }, 'string (date-time)'],
    ['an integer with its format', { type: 'integer', format: 'int64' }, 'integer (int64)'],
    ['3.0 nullable', { type: 'string', format: 'date-time', nullable: true }, 'string (date-time) | null'],
    // D477: the 3.1 spelling of the same schema has the same label (it was `string | null (date-time)`)
    ['3.1 nullable, the same label', { type: ['string', 'null'], format: 'date-time' }, 'string (date-time) | null'],
    ['3.1 null first, the same label', { type: ['null', 'string'], format: 'date-time' }, 'string (date-time) | null'],
    ['a type list', { type: ['string', 'integer'] }, 'string | integer'],
    ['a type list with an array', { type: ['string', 'array'], items: { type: 'integer' } }, 'array of integer'],
    ['type null alone', { type: 'null' }, 'null'],
    ['an object', { type: 'object', properties: {} }, 'object'],
    ['a nullable object', { type: 'object', nullable: true }, 'object | null'],
    ['fields without a type are an object', { properties: { a: {} } }, 'object'],
    ['a map without a type is an object', { additionalProperties: { type: 'string' } }, 'object'],
    ['items without a type are an array', { items: { type: 'string' } }, 'array of string'],
    ['anything', {}, 'any'],
    ['false', false, 'any'],
    ['not', { not: { type: 'string' } }, 'any'],
    ['a nullable anything', { nullable: true }, 'any | null'],
    ['a named schema by name', { $ref: '#/components/schemas/Order' }, 'Order'],
    ['an alias by its own name', { $ref: '#/components/schemas/Alias' }, 'Alias'],
    ['a named enum by its values', { $ref: '#/components/schemas/Status' }, '"open" | "paid"'],
    ['a named const by its value', { $ref: '#/components/schemas/Kind' }, '"order"'],
    // D476: a ref into a component is its target (the label was the pointer's tail `Money/properties/currency`)
    ['a ref into a component, its target', { $ref: '#/components/schemas/Money/properties/currency' }, 'string (iso-4217)'],
    ['an enum', { type: 'integer', enum: [1, 2], nullable: true }, '1 | 2'],
    [
      'a long enum, counted',
      { enum: many(10) },
      `${many(8)
        .map((v) => `"${v}"`)
        .join(' | ')} | … (10)`,
    ],
    ['a const', { const: 3 }, '3'],
    ['an array of a named schema', { type: 'array', items: { $ref: '#/components/schemas/Order' } }, 'array of Order'],
    ['an array without items', { type: 'array' }, 'array of any'],
    ['oneOf', { oneOf: [{ $ref: '#/components/schemas/Order' }, { type: 'string' }] }, 'Order | string'],
    ['anyOf', { anyOf: [{ type: 'integer' }, { type: 'null' }] }, 'integer | null'],
    [
      'an object with a oneOf: the variants',
      { type: 'object', properties: { a: {} }, oneOf: [{ $ref: '#/components/schemas/Order' }] },
      'Order',
    ],
    ['an allOf of one member: that member', { allOf: [{ $ref: '#/components/schemas/Order' }], description: 'The order' }, 'Order'],
    ['3.0 nullable ref: the member', { allOf: [{ $ref: '#/components/schemas/Order' }], nullable: true }, 'Order'],
    ['an allOf of several: object', { allOf: [{ $ref: '#/components/schemas/Order' }, { type: 'object' }] }, 'object'],
    ['an allOf with fields of its own: object', { allOf: [{ $ref: '#/components/schemas/Order' }], properties: { b: {} } }, 'object'],
    ['an enum beside an allOf: the values', { enum: ['a'], allOf: [{ type: 'string' }] }, '"a"'],
    ['a string beside two allOf members', { type: 'string', format: 'uri', allOf: [{}, {}] }, 'string (uri)'],
    ['an array beside an allOf', { type: 'array', items: { type: 'string' }, allOf: [{}, {}] }, 'array of string'],
  ])('%s', (_, schema, expected) => {
    expect(label(schema)).toBe(expected);
  });

  it('spells unions and array items out three levels deep', () => {
    const nest = (inner: unknown, levels: number): unknown => (levels === 0 ? inner : nest({ type: 'array', items: inner }, levels - 1));
    expect(label(nest({ type: 'string' }, 3))).toBe('array of array of array of string');
    expect(label(nest({ type: 'string' }, 4))).toBe('array of array of array of array of items');
    expect(label({ oneOf: [{ oneOf: [{ oneOf: [{ oneOf: [{ type: 'string' }] }] }] }] })).toBe('any');
  });

  it('is any without a schema', () => {
    expect(typeLabel(undefined, resolve)).toBe('any');
  });
});

describe('schemaDescription', () => {
  it.each<[string, unknown, string]>([
    ['its own', { type: 'string', description: 'Own' }, 'Own'],
    ['beside a $ref, over the target', { $ref: '#/components/schemas/Money', description: 'Paid' }, 'Paid'],
    ['the named target', { $ref: '#/components/schemas/Money/properties/currency' }, 'ISO 4217'],
    [
      'beside a ref into a component, over the target (D476)',
      { $ref: '#/components/schemas/Money/properties/currency', description: 'Refund currency' },
      'Refund currency',
    ],
    ['none', { type: 'string' }, ''],
  ])('%s', (_, schema, expected) => {
    expect(schemaDescription(builder.build(schema, '#/x'), resolve)).toBe(expected);
  });
});

describe('eventFieldType and errorFieldType (the events and errors pages)', () => {
  it.each<[string, unknown, string, string]>([
    ['a string', { type: 'string', format: 'date-time' }, 'string', 'string'],
    ['a uuid', { type: 'string', format: 'uuid' }, 'string (UUID)', 'string'],
    // D477: 3.0 nullable and the 3.1 type list read the same (3.0's was `string`)
    ['3.0 nullable', { type: 'string', nullable: true }, 'string | null', 'string | null'],
    ['3.1 nullable', { type: ['string', 'null'] }, 'string | null', 'string | null'],
    ['an enum with its type', { type: 'string', enum: ['a'] }, 'string', 'string'],
    ['a const without a type', { const: 3 }, 'number', 'number'],
    ['a named schema', { $ref: '#/components/schemas/Order' }, 'object', 'Order'],
    ['a named enum', { $ref: '#/components/schemas/Status' }, 'string', 'Status'],
    ['an array', { type: 'array', items: { $ref: '#/components/schemas/Order' } }, 'array', 'array of Order'],
    ['a oneOf', { oneOf: [{ type: 'string' }] }, 'any', 'object'],
    ['fields without a type', { properties: { a: {} } }, 'object', 'object'],
    ['anything', {}, 'any', 'any'],
  ])('%s', (_, schema, event, error) => {
    const node = builder.build(schema, '#/x');
    expect([eventFieldType(node, resolve), errorFieldType(node, resolve)]).toEqual([event, error]);
  });
});

describe('fieldDescription', () => {
  it.each<[string, unknown, string]>([
    ['its own', { const: 'x', description: 'Own' }, 'Own'],
    ['a const', { const: 'order' }, 'Always `order`.'],
    ['a named enum', { $ref: '#/components/schemas/Status' }, 'One of `open`, `paid`.'],
    ['an enum beside an allOf', { enum: ['a', 'b'], allOf: [{ type: 'string' }] }, 'One of `a`, `b`.'],
    ['an empty enum', { enum: [] }, ''],
    ['none', { type: 'string' }, ''],
  ])('%s', (_, schema, expected) => {
    expect(fieldDescription(builder.build(schema, '#/x'), resolve)).toBe(expected);
  });
});
