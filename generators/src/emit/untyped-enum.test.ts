/** emit/untyped-enum.ts (D455 an untyped parameter enum typed by its values). */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { typedByEnum } from './untyped-enum.js';

describe('typedByEnum', () => {
  it.each([
    ["Vonage's booleans and integers", { enum: [true, false, 0, 1] }, ['boolean', 'integer']],
    ['integers and a fraction', { enum: [1, 2.5] }, 'number'],
    ['booleans', { enum: [true, false] }, 'boolean'],
  ])('types %s', (_, schema, type) => {
    expect(typedByEnum(schema)).toEqual({ ...schema, type });
  });

  it.each([
    ['an enum holding a string', { enum: ['a', 1] }],
    ['a typed enum', { type: 'string', enum: ['1'] }],
    ['no enum', { minimum: 1 }],
    ['an empty enum', { enum: [] }],
  ])('leaves %s as it is', (_, schema) => {
    expect(typedByEnum(schema)).toBe(schema);
  });

  it('lets a coercing validator accept the text a query parameter arrives as', () => {
    const validate = new Ajv({ coerceTypes: true }).compile({
      type: 'object',
      properties: { delivered: typedByEnum({ enum: [true, false, 0, 1] }) as object },
    });
    for (const text of ['true', 'false', '0', '1']) expect(validate({ delivered: text })).toBe(true);
    expect(validate({ delivered: 'maybe' })).toBe(false);
  });
});
