import { describe, expect, it } from 'vitest';
import { createStandaloneAjv, numericExclusiveBounds, toAjvSchema } from './ajv-standalone.js';

describe('numericExclusiveBounds (OpenAPI 3.0 boolean exclusive bounds)', () => {
  it.each([
    ['3.0 exclusive minimum', { minimum: 0, exclusiveMinimum: true }, { exclusiveMinimum: 0 }],
    ['3.0 exclusive maximum', { maximum: 10, exclusiveMaximum: true }, { exclusiveMaximum: 10 }],
    ['3.0 inclusive (false)', { minimum: 1, exclusiveMinimum: false, maximum: 5, exclusiveMaximum: false }, { minimum: 1, maximum: 5 }],
    ['true without a bound says nothing', { exclusiveMinimum: true }, {}],
    ['3.1 numbers pass unchanged', { exclusiveMinimum: 0, maximum: 3 }, { exclusiveMinimum: 0, maximum: 3 }],
  ])('%s', (_label, schema, expected) => {
    expect(numericExclusiveBounds(schema)).toEqual(expected);
  });

  it.each([
    ['3.0.3', 0, false],
    ['3.0.3', 1, true],
    ['3.1.0', 0, false],
  ])('an OpenAPI %s validator refuses %i for "greater than 0": valid %s', (version, value, valid) => {
    const schema = version.startsWith('3.1')
      ? { type: 'integer', exclusiveMinimum: 0 }
      : { type: 'integer', minimum: 0, exclusiveMinimum: true };
    const ajv = createStandaloneAjv(version, { strict: false });
    expect(ajv.validate(toAjvSchema(schema, 'root') as object, value)).toBe(valid);
  });
});
