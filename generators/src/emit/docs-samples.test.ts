import { describe, expect, it } from 'vitest';
import { RefResolver } from '../model/ref-resolver.js';
import type { OperationModel, SecuritySchemeModel } from '../model/types.js';
import { curlSample, envPrefixOf, exampleFor, fitToSchema, sampleSettings, typescriptSample, withCodeSamples } from './docs-samples.js';

const resolver = new RefResolver({
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['name', 'kind'],
        properties: { name: { type: 'string' }, kind: { enum: ['cat', 'dog'] }, age: { type: 'integer' } },
      },
    },
  },
});

describe('exampleFor: a value from the schema when the spec gives none', () => {
  it.each([
    [{ type: 'string', format: 'date-time' }, '2026-01-15T10:30:00Z'],
    [{ type: 'string', minLength: 8 }, 'stringxx'],
    [{ type: 'integer', minimum: 5 }, 5],
    [{ type: ['string', 'null'], format: 'email' }, 'user@example.com'],
    [{ const: 'ok' }, 'ok'],
    [{ example: 'own' }, 'own'],
    [{ $ref: '#/components/schemas/Pet' }, { name: 'string', kind: 'cat' }],
    [{ type: 'array', items: { type: 'boolean' } }, [true]],
    [{ oneOf: [{ type: 'null' }, { type: 'number' }] }, 1],
  ])('%j -> %j', (schema, expected) => {
    expect(exampleFor(resolver, schema)).toEqual(expected);
  });
});

describe('fitToSchema: an example keeps only what its schema declares', () => {
  it('drops unknown properties of a closed object, recursively, and keeps those of an open one', () => {
    const schema = {
      type: 'object',
      properties: {
        pet: { $ref: '#/components/schemas/Pet' },
        tags: { type: 'object', additionalProperties: true, properties: { a: {} } },
      },
    };
    expect(fitToSchema(resolver, schema, { pet: { name: 'x', kind: 'cat', colour: 'red' }, tags: { a: 1, b: 2 }, extra: 1 })).toEqual({
      pet: { name: 'x', kind: 'cat' },
      tags: { a: 1, b: 2 },
    });
  });
});

const scheme = (s: Partial<SecuritySchemeModel> & { name: string; type: string }): SecuritySchemeModel => ({
  in: undefined,
  parameterName: undefined,
  scheme: undefined,
  description: undefined,
  clientOption: undefined,
  ...s,
});

function operation(partial: Partial<OperationModel>): OperationModel {
  return {
    operationId: 'getPet',
    synthesizedId: false,
    method: 'get',
    path: '/pets/{pet_id}',
    expressPath: '/pets/:pet_id',
    tags: ['pets'],
    summary: undefined,
    description: undefined,
    deprecated: false,
    parameters: { path: [], query: [], header: [], cookie: [] },
    parameterList: [],
    requestBody: undefined,
    responses: [],
    security: [],
    callbacks: [],
    pagination: undefined,
    extensions: {},
    ...partial,
  };
}

describe('curl and TypeScript samples', () => {
  const settings = sampleSettings({
    title: 'Pet Store API',
    clientName: undefined,
    servers: [{ url: 'https://api.example.com/v1/', description: undefined }],
    extensions: {},
  });

  it('names environment variables and the factory after the API', () => {
    expect(envPrefixOf('PetStore')).toBe('PET_STORE');
    expect(settings).toMatchObject({
      factory: 'createPetStoreClient',
      clientModule: './client/client.gen.js',
      defaultUrl: 'https://api.example.com/v1',
    });
  });

  it.each([
    [scheme({ name: 'bearerAuth', type: 'http', scheme: 'bearer' }), '-H "Authorization: Bearer $PET_STORE_BEARER_AUTH"'],
    [scheme({ name: 'basic', type: 'http', scheme: 'basic' }), '-u "$PET_STORE_USERNAME:$PET_STORE_PASSWORD"'],
    [scheme({ name: 'key', type: 'apiKey', in: 'query', parameterName: 'api_key' }), '/pets/7?api_key=$PET_STORE_KEY"'],
    [
      scheme({ name: 'Secret', type: 'apiKey', in: 'header', parameterName: 'X-Secret', clientOption: 'clientSecret' }),
      '-H "X-Secret: $PET_STORE_CLIENT_SECRET"',
    ],
  ])('%j authenticates with an environment variable', (s, expected) => {
    const op = operation({ security: [[{ scheme: s.name, scopes: [] }]] });
    const raw = { parameters: [{ name: 'pet_id', in: 'path', required: true, value: 7 }], body: undefined };
    const text = curlSample(settings, { securitySchemes: [s] }, op, raw);
    expect(text).toContain(expected);
    expect(text).toContain('$PET_STORE_URL/pets/7');
  });

  it('passes path values, the body and required query values to the facade method in its order', () => {
    const op = operation({
      method: 'post',
      parameters: { path: [{ name: 'pet_id' } as never], query: [{ name: 'dry_run' } as never], header: [], cookie: [] },
      requestBody: {
        required: true,
        description: undefined,
        content: [{ mediaType: 'application/json', schema: {}, node: undefined, fields: undefined }],
      },
    });
    const raw = {
      parameters: [
        { name: 'pet_id', in: 'path', required: true, value: 'p1' },
        { name: 'dry_run', in: 'query', required: true, value: true },
      ],
      body: { mediaType: 'application/json', value: { name: 'Rex' }, required: true },
    };
    const text = typescriptSample(settings, { securitySchemes: [] }, op, raw, { group: 'pets', method: 'update' });
    expect(text).toContain(`import { createPetStoreClient } from "./client/client.gen.js";`);
    expect(text).toContain('await petStore.pets.update("p1", {\n  name: "Rex"\n}, {\n  dry_run: true\n});');
  });

  it("adds x-codeSamples after the spec's own, without changing the input", () => {
    const doc = { paths: { '/a': { get: { 'x-codeSamples': [{ lang: 'Go', source: 'go' }] } } } };
    const out = withCodeSamples(doc, [
      { operationId: 'a', method: 'get', path: '/a', samples: [{ lang: 'Shell', label: 'curl', source: 'curl' }] },
    ]) as typeof doc;
    expect(out.paths['/a'].get['x-codeSamples']).toHaveLength(2);
    expect(doc.paths['/a'].get['x-codeSamples']).toHaveLength(1);
  });
});
