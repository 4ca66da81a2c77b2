/** emit/closed-all-of.ts (D454 additionalProperties false beside allOf counts the members' properties). */
import { describe, expect, it } from 'vitest';
import { closedAllOfDeclared } from './closed-all-of.js';

const components: Record<string, unknown> = {
  Image: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' }, data: { type: 'string' } } },
  Named: { allOf: [{ $ref: '#/components/schemas/Image' }, { properties: { tag: { type: 'string' } } }] },
};
const resolve = (ref: string) => components[ref.replace('#/components/schemas/', '')];

describe('closedAllOfDeclared', () => {
  it.each([
    [
      "ShipEngine's closed request body over a $ref'd member",
      { type: 'object', additionalProperties: false, allOf: [{ $ref: '#/components/schemas/Image' }], required: ['name'] },
      {
        type: 'object',
        additionalProperties: false,
        allOf: [{ $ref: '#/components/schemas/Image' }],
        required: ['name'],
        properties: { name: true, data: true },
      },
    ],
    [
      'members of members, and its own properties kept as written',
      { additionalProperties: false, properties: { id: { type: 'integer' } }, allOf: [{ $ref: '#/components/schemas/Named' }] },
      {
        additionalProperties: false,
        properties: { id: { type: 'integer' }, name: true, data: true, tag: true },
        allOf: [{ $ref: '#/components/schemas/Named' }],
      },
    ],
    [
      'a closed composition nested in a property',
      { type: 'object', properties: { image: { additionalProperties: false, allOf: [{ $ref: '#/components/schemas/Image' }] } } },
      {
        type: 'object',
        properties: {
          image: { additionalProperties: false, allOf: [{ $ref: '#/components/schemas/Image' }], properties: { name: true, data: true } },
        },
      },
    ],
  ])('declares the members of %s', (_, schema, expected) => {
    expect(closedAllOfDeclared(schema, resolve)).toEqual(expected);
  });

  it.each([
    ['an open allOf', { allOf: [{ $ref: '#/components/schemas/Image' }] }],
    ['a closed object without allOf', { additionalProperties: false, properties: { a: { type: 'string' } } }],
    [
      'a closed allOf whose members declare nothing new',
      { additionalProperties: false, properties: { name: {}, data: {} }, allOf: [{ $ref: '#/components/schemas/Image' }] },
    ],
  ])('returns %s as it is', (_, schema) => {
    expect(closedAllOfDeclared(schema, resolve)).toBe(schema);
  });
});
