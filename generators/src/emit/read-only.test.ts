/** emit/read-only.ts (D453 readOnly properties not required in requests): which `required` names a request may leave out. */
import { describe, expect, it } from 'vitest';
import { readOnlyNotRequired } from './read-only.js';

const id = { type: 'string', readOnly: true };
const amount = { type: 'number' };

describe('readOnlyNotRequired', () => {
  it.each([
    [
      'a readOnly property',
      { type: 'object', required: ['id', 'amount'], properties: { id, amount } },
      { type: 'object', required: ['amount'], properties: { id, amount } },
    ],
    [
      'every required property readOnly (no required left)',
      { type: 'object', required: ['id'], properties: { id } },
      { type: 'object', properties: { id } },
    ],
    [
      'readOnly beside a $ref',
      { type: 'object', required: ['owner'], properties: { owner: { $ref: '#/components/schemas/User', readOnly: true } } },
      { type: 'object', properties: { owner: { $ref: '#/components/schemas/User', readOnly: true } } },
    ],
    [
      'nested in items and allOf',
      { type: 'array', items: { allOf: [{ type: 'object', required: ['id', 'amount'], properties: { id, amount } }] } },
      { type: 'array', items: { allOf: [{ type: 'object', required: ['amount'], properties: { id, amount } }] } },
    ],
    [
      'in a property of a property',
      { type: 'object', properties: { line: { type: 'object', required: ['id'], properties: { id } } } },
      { type: 'object', properties: { line: { type: 'object', properties: { id } } } },
    ],
  ])('leaves out %s', (_, schema, expected) => {
    expect(readOnlyNotRequired(schema)).toEqual(expected);
  });

  it('leaves out a property whose $ref names a readOnly schema (through a chain of refs)', () => {
    const components: Record<string, unknown> = {
      Id: { $ref: '#/components/schemas/Uuid' },
      Uuid: { type: 'string', readOnly: true },
      Name: { type: 'string' },
    };
    const resolve = (ref: string) => components[ref.replace('#/components/schemas/', '')];
    const schema = {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { $ref: '#/components/schemas/Id' }, name: { $ref: '#/components/schemas/Name' } },
    };
    expect(readOnlyNotRequired(schema, resolve)).toEqual({ ...schema, required: ['name'] });
  });

  it.each([
    ['no readOnly property', { type: 'object', required: ['amount'], properties: { amount } }],
    ['readOnly: false', { type: 'object', required: ['id'], properties: { id: { type: 'string', readOnly: false } } }],
    ['a required name with no property schema', { type: 'object', required: ['id'] }],
    ['an enum holding objects (data, not schemas)', { enum: [{ required: ['id'], properties: { id } }] }],
  ])('returns the schema itself for %s', (_, schema) => {
    expect(readOnlyNotRequired(schema)).toBe(schema);
  });
});
