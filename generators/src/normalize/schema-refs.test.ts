import { describe, expect, it } from 'vitest';
import { inlineSchemaRefs, isCopiedRef } from './schema-refs.js';

const companyId = { description: 'Unique identifier for your SMB.', type: 'string', format: 'uuid' };

describe('isCopiedRef', () => {
  it.each([
    ['#/components/parameters/companyId/schema', true],
    ['#/components/headers/X-Rate/schema', true],
    ['#/components/responses/Err/content/application~1json/schema', true],
    ['#/components/responses/Err/content/application~1json/schema/properties/code', true],
    ['#/paths/~1notes/get/parameters/0/schema', true],
    ['#/components/schemas/Note', false],
    ['#/components/schemas/Note/properties/schema', false],
    ['#/components/schemas/Note/properties/a/properties/b', false],
    ['#/components/schemas/Note/definitions/accountRef', true],
    ['#/components/schemas/Note/allOf/1', true],
    ['#/components/schemas/Note/properties/a/items', true],
    ['#/components/parameters/companyId', false],
    ['#/components/parameters/schema', false],
    ['other.json#/components/parameters/companyId/schema', false],
  ])('%s: %s', (ref, expected) => {
    expect(isCopiedRef(ref)).toBe(expected);
  });
});

describe('inlineSchemaRefs', () => {
  const doc = (schemas: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    openapi: '3.1.0',
    components: <Record<string, unknown>>{
      parameters: { companyId: { in: 'path', name: 'companyId', required: true, schema: companyId } },
      schemas,
      ...extra,
    },
  });

  it.each([
    [
      // Codat's webhook payloads
      'a property naming a parameter schema',
      { Hook: { type: 'object', properties: { companyId: { $ref: '#/components/parameters/companyId/schema' } } } },
      { Hook: { type: 'object', properties: { companyId } } },
    ],
    [
      'siblings of the $ref kept over the copy',
      { Hook: { properties: { id: { $ref: '#/components/parameters/companyId/schema', description: 'The company.' } } } },
      { Hook: { properties: { id: { ...companyId, description: 'The company.' } } } },
    ],
    [
      'a property called default and a schema in allOf',
      {
        Hook: {
          properties: { default: { $ref: '#/components/parameters/companyId/schema' } },
          allOf: [{ $ref: '#/components/parameters/companyId/schema' }],
        },
      },
      { Hook: { properties: { default: companyId }, allOf: [companyId] } },
    ],
    [
      'refs to component schemas, their properties and whole components left alone',
      {
        A: { $ref: '#/components/schemas/B' },
        B: { items: { $ref: '#/components/schemas/A/properties/x' } },
        P: { $ref: '#/components/parameters/companyId' },
      },
      {
        A: { $ref: '#/components/schemas/B' },
        B: { items: { $ref: '#/components/schemas/A/properties/x' } },
        P: { $ref: '#/components/parameters/companyId' },
      },
    ],
    [
      // Codat's accounting schemas
      'a ref into a schema definitions copied, the refs inside it kept',
      {
        A: {
          definitions: { ref: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } } },
          properties: { r: { $ref: '#/components/schemas/A/definitions/ref' } },
        },
        B: { type: 'string' },
      },
      {
        A: {
          definitions: { ref: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } } },
          properties: { r: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } } },
        },
        B: { type: 'string' },
      },
    ],
    [
      'example data left alone',
      {
        A: {
          type: 'object',
          example: { $ref: '#/components/parameters/companyId/schema' },
          enum: [{ $ref: '#/components/parameters/companyId/schema' }],
        },
      },
      {
        A: {
          type: 'object',
          example: { $ref: '#/components/parameters/companyId/schema' },
          enum: [{ $ref: '#/components/parameters/companyId/schema' }],
        },
      },
    ],
    [
      'a ref that resolves to nothing stays as written',
      { A: { $ref: '#/components/parameters/nope/schema' } },
      { A: { $ref: '#/components/parameters/nope/schema' } },
    ],
  ])('%s', (_name, schemas, expected) => {
    expect(inlineSchemaRefs(doc(schemas)).document.components.schemas).toEqual(expected);
  });

  it('inlines in a response, the default response included, and reports each pointer once', () => {
    const response = {
      description: 'x',
      content: { 'application/json': { schema: { $ref: '#/components/parameters/companyId/schema' } } },
    };
    const { document, inlined } = inlineSchemaRefs(doc({}, { responses: { default: response, other: response } }));
    expect(document.components.responses).toEqual({
      default: { description: 'x', content: { 'application/json': { schema: companyId } } },
      other: { description: 'x', content: { 'application/json': { schema: companyId } } },
    });
    expect(inlined).toEqual(['#/components/parameters/companyId/schema']);
  });

  it("a pointer written as a URI fragment, percent-encoded (Brex's refs into its paths)", () => {
    const schema = { type: 'object', properties: { company: { type: 'string' } } };
    const ok = { description: 'ok', content: { 'application/json': { schema } } };
    const document = {
      paths: {
        '/lei/{number}': { get: { responses: { '200': ok } } },
        '/other': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { $ref: '#/paths/~1lei~1%7Bnumber%7D/get/responses/200/content/application~1json/schema/properties/company' },
                  },
                },
              },
            },
          },
        },
      },
    };
    expect(inlineSchemaRefs(document).document.paths['/other'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'string',
    });
  });

  it('a schema reaching itself through such refs ends in any value', () => {
    const looped = {
      openapi: '3.1.0',
      components: {
        parameters: {
          p: { in: 'query', name: 'p', schema: { type: 'object', properties: { next: { $ref: '#/components/parameters/p/schema' } } } },
        },
        schemas: { A: { $ref: '#/components/parameters/p/schema' } },
      },
    };
    const a = inlineSchemaRefs(looped).document.components.schemas.A;
    expect(a).toEqual({ type: 'object', properties: { next: {} } });
  });

  it('the document itself when it has none', () => {
    const d = doc({ A: { type: 'string' } });
    expect(inlineSchemaRefs(d).document).toBe(d);
  });
});
