/** emit/untyped-enum.ts (D455 an untyped parameter enum typed by its values). */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { enumOfDeclaredType, typedByEnum } from './untyped-enum.js';

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

describe('enumOfDeclaredType (D470 a parameter enum of another type read as its text)', () => {
  it.each([
    ['integers of a string', { type: 'string', enum: [1, 2, 3] }, ['1', '2', '3']],
    ['strings of an integer', { type: 'integer', enum: ['1', '10'] }, [1, 10]],
    ['strings of a number', { type: 'number', enum: ['1.5', '2'] }, [1.5, 2]],
    ['strings of a boolean', { type: 'boolean', enum: ['true', 'false'] }, [true, false]],
    ['a mix, null kept', { type: 'string', enum: ['a', 2, null] }, ['a', '2', null]],
  ])('writes %s in the declared type', (_, schema, values) => {
    expect(enumOfDeclaredType(schema)).toEqual({ ...schema, enum: values });
  });

  it.each([
    ['an enum that fits', { type: 'string', enum: ['a', 'b'] }],
    ['integers of a number', { type: 'number', enum: [1, 2] }],
    ['a word of an integer', { type: 'integer', enum: ['one'] }],
    ['a fraction of an integer', { type: 'integer', enum: ['1.5'] }],
    ['an object of a string', { type: 'string', enum: [{ a: 1 }] }],
    ['several types', { type: ['string', 'null'], enum: [1] }],
    ['no enum', { type: 'string' }],
  ])('leaves %s as it is', (_, schema) => {
    expect(enumOfDeclaredType(schema)).toBe(schema);
  });

  it('lets a coercing validator accept the text a path parameter arrives as', () => {
    const validate = new Ajv({ coerceTypes: true }).compile({
      type: 'object',
      properties: {
        verse: enumOfDeclaredType({ type: 'string', enum: [1, 2] }) as object,
        rating: enumOfDeclaredType({ type: 'integer', enum: ['9'] }) as object,
      },
    });
    expect(validate({ verse: '1', rating: '9' })).toBe(true);
    expect(validate({ verse: '3', rating: '9' })).toBe(false);
  });
});
