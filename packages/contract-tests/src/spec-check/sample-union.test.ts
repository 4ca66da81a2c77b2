import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { isObj } from '@paygate/contract/json';
import { discriminatorTags } from './sample-union.js';
import { sampleOf, type Accepts, type Json, type JsonObject } from './samples.js';

/** A validator over one document, by the JSON pointer of each schema object (what the corpus probe does). */
function checker(schemas: Record<string, JsonObject>): { deref: (n: Json | undefined) => Json | undefined; accepts: Accepts } {
  const document: JsonObject = { components: { schemas } };
  const ajv = new Ajv2020({ strict: false, validateSchema: false });
  ajv.addSchema(document as object, 'doc');
  const pointers = new WeakMap<object, string>();
  const walk = (node: Json, at: string): void => {
    if (node === null || typeof node !== 'object') return;
    pointers.set(node, at);
    for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
  };
  walk(document, '#');
  const deref = (node: Json | undefined): Json | undefined =>
    isObj(node) && typeof node['$ref'] === 'string' ? schemas[node['$ref'].split('/').pop()!] : node;
  const accepts: Accepts = (schema, value) => {
    const pointer = pointers.get(schema);
    return pointer === undefined || ajv.validate({ $ref: `doc${pointer}` }, value);
  };
  return { deref, accepts };
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

describe('sampleOf on oneOf/anyOf (D426)', () => {
  it.each<{ name: string; schemas: Record<string, JsonObject>; tag?: { property: string; allowed: string[] } }>([
    {
      name: 'a discriminator mapping whose branches type the tag as a plain string',
      schemas: {
        Body: {
          oneOf: [ref('Card'), ref('Bank')],
          discriminator: { propertyName: 'method', mapping: { card: '#/components/schemas/Card', bank: '#/components/schemas/Bank' } },
        },
        Card: { type: 'object', required: ['method'], properties: { method: { type: 'string' }, number: { type: 'string' } } },
        Bank: { type: 'object', required: ['method'], properties: { method: { type: 'string' }, iban: { type: 'integer' } } },
      },
      tag: { property: 'method', allowed: ['card', 'bank'] },
    },
    {
      name: "a mapping whose tags are not the schemas' names, each branch limiting the tag to its own",
      schemas: {
        Body: {
          oneOf: [ref('Card'), ref('Bank')],
          discriminator: { propertyName: 'type', mapping: { card_payment: '#/components/schemas/Card', bank_transfer: 'Bank' } },
        },
        Card: {
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string', enum: ['card_payment'] }, example: { type: 'string' } },
        },
        Bank: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['bank_transfer'] } } },
      },
      tag: { property: 'type', allowed: ['card_payment', 'bank_transfer'] },
    },
    {
      name: "no mapping: the schema's name is the tag (a spec example with another tag is not used)",
      schemas: {
        Body: { oneOf: [ref('Cat'), ref('Dog')], discriminator: { propertyName: 'petType' } },
        Cat: {
          type: 'object',
          required: ['petType'],
          properties: { petType: { type: 'string', enum: ['Cat'] } },
          example: { petType: 'Dog' },
        },
        Dog: {
          type: 'object',
          required: ['petType', 'bark'],
          properties: { petType: { type: 'string', enum: ['Dog'] }, bark: { type: 'boolean' } },
        },
      },
      tag: { property: 'petType', allowed: ['Cat', 'Dog'] },
    },
    {
      name: "branches of optional properties only, told apart by a property's type (1Password's cursor)",
      schemas: {
        Body: { oneOf: [ref('Cursor'), ref('ResetCursor')] },
        Cursor: { properties: { cursor: { type: 'string' } } },
        ResetCursor: { properties: { limit: { type: 'number', minimum: 1 }, start_time: { type: 'string' } } },
      },
    },
    {
      name: "branches of optional properties only, told apart by an optional enum (InfluxDB's variable arguments)",
      schemas: {
        Body: { oneOf: [ref('Query'), ref('Constant'), ref('Map')] },
        Query: { properties: { type: { type: 'string', enum: ['query'] }, values: { type: 'object' } } },
        Constant: { properties: { type: { type: 'string', enum: ['constant'] }, values: { type: 'array' } } },
        Map: { properties: { type: { type: 'string', enum: ['map'] }, values: { type: 'object' } } },
      },
    },
    {
      name: "required names beside the oneOf that only one branch declares (gererMesAffaires' documents)",
      schemas: {
        Body: { oneOf: [ref('Statement'), ref('Document')], required: ['Title', 'File', 'DocumentId'] },
        Statement: { type: 'object', properties: { DocumentId: { type: 'string' }, Balance: { type: 'number' } } },
        Document: {
          type: 'object',
          properties: { Title: { type: 'string' }, File: { type: 'object', properties: { Name: { type: 'string' } } } },
        },
      },
    },
    {
      name: 'branches of allOf members (a required name in one member, its schema in another: Vonage voice)',
      schemas: {
        Body: { oneOf: [ref('WithNcco'), ref('WithAnswerUrl')] },
        WithNcco: { allOf: [{ required: ['ncco'] }, { properties: { ncco: { type: 'array', items: { type: 'object' } } } }, ref('Base')] },
        WithAnswerUrl: {
          allOf: [{ required: ['answer_url'] }, { properties: { answer_url: { type: 'array', items: { type: 'string' } } } }, ref('Base')],
        },
        Base: {
          type: 'object',
          required: ['to'],
          properties: {
            to: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['phone'] } } } },
          },
        },
      },
    },
  ])('$name', ({ schemas, tag }) => {
    const { deref, accepts } = checker(schemas);
    const body = schemas['Body']!;
    const value = sampleOf(body, deref, 0, accepts);
    expect(accepts(body, value), JSON.stringify(value)).toBe(true);
    if (tag !== undefined) expect(tag.allowed).toContain((value as JsonObject)[tag.property]);
    expect(sampleOf(body, deref, 0, accepts)).toEqual(value);
  });

  it("a discriminator's tags for a branch: the mapping's keys that name it, then its schema name", () => {
    const discriminator = {
      propertyName: 'kind',
      mapping: { a: '#/components/schemas/Alpha', also: 'Alpha', b: '#/components/schemas/Beta' },
    };
    expect(discriminatorTags(discriminator, ref('Alpha'))).toEqual(['a', 'also', 'Alpha']);
    expect(discriminatorTags(discriminator, ref('Gamma'))).toEqual(['Gamma']);
    expect(discriminatorTags(discriminator, { type: 'object' })).toEqual([]);
  });
});
