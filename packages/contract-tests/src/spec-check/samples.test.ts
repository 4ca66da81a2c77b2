import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { sampleOf, type Accepts, type Json, type JsonObject } from './samples.js';

const ajv = new Ajv2020({ strict: false, validateSchema: false });
/** A validator over standalone schemas (no `$ref`): what a caller with the whole document does by pointer. */
const accepts: Accepts = (schema, value) => ajv.validate(schema as object, value);
const deref = (node: Json | undefined): Json | undefined => node;
const sample = (schema: JsonObject): Json => sampleOf(schema, deref, 0, accepts);

describe('sampleOf with a validator (D433)', () => {
  it.each<{ name: string; schema: JsonObject }>([
    { name: 'an example outside the enum', schema: { type: 'string', enum: ['yes', 'no'], example: 'maybe' } },
    { name: 'an example under the minimum', schema: { type: 'integer', minimum: 10, example: 3 } },
    { name: 'a number example where a string is declared', schema: { type: 'string', example: 0 } },
    { name: 'an example that breaks the pattern', schema: { type: 'string', pattern: '^P[0-9]{4}$', example: 'P18784' } },
    {
      name: 'an object example missing a required property',
      schema: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
        example: { id: 1 },
      },
    },
  ])("$name: a generated value instead of the spec's own", ({ schema }) => {
    const value = sample(schema);
    expect(ajv.validate(schema, value), JSON.stringify(value)).toBe(true);
  });

  it("keeps the spec's own example when it fits", () => {
    expect(sample({ type: 'string', pattern: '^[a-z]+$', example: 'hello' })).toBe('hello');
    expect(sample({ type: 'string', enum: ['a', 'b'], example: 'b' })).toBe('b');
  });

  it('builds a string for a pattern, and a format sample only when it matches the pattern', () => {
    const patterned = { type: 'string', pattern: '^[A-Z]{3}-[0-9]{2}$' };
    expect(sample(patterned)).toMatch(/^[A-Z]{3}-[0-9]{2}$/);
    const both = { type: 'string', format: 'date', pattern: '^[0-9]{8}$' };
    expect(sample(both)).toMatch(/^[0-9]{8}$/);
  });

  it('meets a minLength a short match of the pattern does not (an AWS ARN), and reads an allOf of a scalar as the scalar', () => {
    const arn = { type: 'string', pattern: '^arn:aws[0-9a-zA-Z_\\-:\\/]+$', minLength: 20, maxLength: 2048 };
    expect(ajv.validate(arn, sample(arn)), String(sample(arn))).toBe(true);
    const tag: JsonObject = { allOf: [{ type: 'string', minLength: 1, maxLength: 128 }, { description: 'The key of a tag.' }] };
    expect(typeof sample(tag)).toBe('string');
    expect(ajv.validate(tag, sample(tag))).toBe(true);
  });

  it('never throws on a pattern fast-check cannot build within maxLength (it falls back to a plain string)', () => {
    expect(typeof sample({ type: 'string', pattern: '^[a-z]{10,}$', maxLength: 5 })).toBe('string');
  });

  it('fills a map up to its minProperties', () => {
    const map: JsonObject = { type: 'object', additionalProperties: { type: 'string', minLength: 1 }, minProperties: 2 };
    expect(ajv.validate(map, sample(map)), JSON.stringify(sample(map))).toBe(true);
  });

  it('fills required properties of objects nested in arrays, including those only an allOf member declares', () => {
    const schema: JsonObject = {
      type: 'object',
      required: ['items'],
      properties: {
        items: {
          type: 'array',
          items: {
            allOf: [{ type: 'object', properties: { sku: { type: 'string', minLength: 3 } } }],
            required: ['sku', 'quantity'],
            properties: { quantity: { type: 'integer', minimum: 1 } },
          },
        },
      },
    };
    const value = sample(schema) as { items: JsonObject[] };
    expect(value.items[0]).toEqual({ sku: expect.any(String), quantity: 1 });
    expect(ajv.validate(schema, value)).toBe(true);
  });

  it('of oneOf, takes the first alternative whose sample matches exactly one', () => {
    const schema: JsonObject = {
      oneOf: [
        { type: 'object', properties: { kind: { type: 'string' } } },
        { type: 'object', required: ['kind'], properties: { kind: { const: 'video' } } },
      ],
    };
    const value = sample(schema);
    expect(ajv.validate(schema, value), JSON.stringify(value)).toBe(true);
  });

  /** `levels` objects nested in arrays, each property wrapped in `allOf: [schema, {description}]` as AWS writes them. */
  const wrapped = (levels: number): JsonObject => {
    let schema: JsonObject = { type: 'string', minLength: 2 };
    for (let i = 0; i < levels; i++)
      schema = {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'next'],
          properties: {
            name: { allOf: [{ type: 'string' }, { description: 'a name' }] },
            next: { allOf: [schema, { description: 'deeper' }] },
          },
        },
      };
    return schema;
  };

  it.each<{ name: string; schema: JsonObject }>([
    {
      name: "anyOf alternatives that only name required properties, their schemas beside the anyOf (GitHub's pages body)",
      schema: {
        type: 'object',
        anyOf: [{ required: ['source'] }, { required: ['build_type'] }],
        properties: {
          build_type: { type: 'string', enum: ['legacy', 'workflow'] },
          source: { type: 'object', required: ['branch'], properties: { branch: { type: 'string' } } },
        },
      },
    },
    {
      name: 'a required name in one allOf member, its schema in another (Vonage voice)',
      schema: { allOf: [{ required: ['ncco'] }, { properties: { ncco: { type: 'array', items: { type: 'object' } } } }] },
    },
    {
      name: 'an allOf of objects nested in an array, required names from every member',
      schema: {
        type: 'array',
        items: {
          allOf: [
            { type: 'object', required: ['sku'], properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' } } },
            { required: ['quantity'], properties: { quantity: { type: 'integer', minimum: 1 }, sku: { maxLength: 8 } } },
          ],
        },
      },
    },
    {
      name: "an allOf of arrays whose items differ (NPR's collection document)",
      schema: {
        allOf: [
          { type: 'array', items: { type: 'object' } },
          { type: 'array', items: { type: 'object', required: ['href'], properties: { href: { type: 'string' } } }, minItems: 2 },
        ],
      },
    },
    {
      name: "an allOf of a string and an enum (Apple's invocation method)",
      schema: { allOf: [{ type: 'string' }, { type: 'string', enum: ['AddMediaIntentHandling.confirm'] }] },
    },
    { name: 'allOf-wrapped properties four arrays deep (AWS CodePipeline)', schema: wrapped(4) },
    {
      name: "unique integers, more than one required (PortfolioOptimizer's asset indexes)",
      schema: { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 3, uniqueItems: true },
    },
    {
      name: 'an allOf whose own example breaks a member',
      schema: { allOf: [{ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }], example: { id: 'x' } },
    },
  ])('$name', ({ schema }) => {
    const value = sample(schema);
    expect(ajv.validate(schema, value), JSON.stringify(value)).toBe(true);
    expect(sample(schema)).toEqual(value);
  });

  it('past the depth limit a value of the declared type (a scalar, an empty object), not null', () => {
    expect(JSON.stringify(sample(wrapped(12)))).not.toContain('null');
  });

  it("without a validator, the spec's own value comes first as before", () => {
    expect(sampleOf({ type: 'string', enum: ['yes', 'no'], example: 'maybe' }, deref)).toBe('maybe');
  });
});
