/** normalize/schema-refs.ts (D452 schema refs outside components inlined): which refs are copied in place, and which are left. */
import { describe, expect, it } from 'vitest';
import { inlineNonComponentSchemaRefs, intoSchemaKeywords } from './schema-refs.js';

const form = { type: 'object', properties: { jwt: { type: 'string' } } };
const doc = (extra: Record<string, unknown>) => ({
  openapi: '3.0.3',
  paths: {
    '/authn-jwt/{service_id}': {
      post: {
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: form } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    ...extra,
  },
  components: {
    schemas: {
      Id: { type: 'string' },
      Tree: { type: 'object', properties: { child: { $ref: '#/components/schemas/Tree' } } },
      // Codat's accounting schemas keep shared parts under `definitions` and point into them
      Account: { type: 'object', definitions: { ref: { type: 'object', properties: { id: { $ref: '#/components/schemas/Id' } } } } },
    },
    parameters: { Account: { name: 'account', in: 'path', required: true, schema: { type: 'string', maxLength: 8 } } },
    responses: { Ok: { description: 'ok' } },
  },
});
const post = (schema: unknown) => ({
  post: { requestBody: { content: { 'application/json': { schema } } }, responses: { '200': { $ref: '#/components/responses/Ok' } } },
});

/** The JSON body schema of the path's POST. */
const bodyOf = (document: unknown, path: string): unknown =>
  (document as { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }> }).paths[path]!.post
    .requestBody.content['application/json']!.schema;

describe('inlineNonComponentSchemaRefs', () => {
  it.each([
    [
      "another operation's schema, percent-encoded as a URI fragment",
      '#/paths/~1authn-jwt~1%7Bservice_id%7D/post/requestBody/content/application~1x-www-form-urlencoded/schema',
      form,
    ],
    ["a parameter's schema", '#/components/parameters/Account/schema', { type: 'string', maxLength: 8 }],
    // D412: the type layer cannot index a component schema's keywords
    [
      "a component schema's definitions (its own refs into components kept)",
      '#/components/schemas/Account/definitions/ref',
      { type: 'object', properties: { id: { $ref: '#/components/schemas/Id' } } },
    ],
  ])('copies %s in place', (_, ref, expected) => {
    const { document, inlined } = inlineNonComponentSchemaRefs(doc({ '/other': post({ $ref: ref }) }));
    expect(bodyOf(document, '/other')).toEqual(expected);
    expect(inlined).toEqual([{ pointer: '#/paths/~1other/post/requestBody/content/application~1json/schema', ref }]);
  });

  it('copies a ref nested in a schema, keeping the siblings written beside it', () => {
    const schema = {
      type: 'object',
      properties: { account: { $ref: '#/components/parameters/Account/schema', description: 'the account' } },
    };
    const { document } = inlineNonComponentSchemaRefs(doc({ '/other': post(schema) }));
    expect(bodyOf(document, '/other')).toEqual({
      type: 'object',
      properties: { account: { type: 'string', maxLength: 8, description: 'the account' } },
    });
  });

  it.each([
    ['a component schema ref (recursive ones too)', { $ref: '#/components/schemas/Tree' }],
    ['a ref to nothing (the lint reports it)', { $ref: '#/components/parameters/Missing/schema' }],
  ])('leaves %s as written', (_, schema) => {
    const input = doc({ '/other': post(schema) });
    const { document, inlined } = inlineNonComponentSchemaRefs(input);
    expect(document).toBe(input);
    expect(inlined).toEqual([]);
  });

  it.each([
    ['#/components/schemas/X', false],
    ['#/components/schemas/X/properties/a', false],
    // D473: `X["a"]["b"]` does not compile when `a` is optional or nullable
    ['#/components/schemas/X/properties/a/properties/b', true],
    ['#/components/schemas/X/definitions/accountRef', true],
    ['#/components/schemas/X/allOf/1', true],
    ['#/components/schemas/X/properties/a/items', true],
    ['#/components/schemas/X/properties/a/oneOf/0', true],
    ['#/components/parameters/X/schema', false],
  ])('intoSchemaKeywords(%s) is %s (D412)', (ref, expected) => {
    expect(intoSchemaKeywords(ref)).toBe(expected);
  });

  it('leaves refs that are not in a schema position (a response ref) and examples alone', () => {
    const input = doc({ '/x': { get: { responses: { '200': { $ref: '#/paths/~1other/get/responses/200' } } } } });
    expect(inlineNonComponentSchemaRefs(input).document).toBe(input);
  });

  it('gives a schema that leads back into itself through copies a component of its own, named by its pointer (D472)', () => {
    const ref = '#/paths/~1loop/post/requestBody/content/application~1json/schema';
    const loop = { type: 'object', properties: { next: { $ref: ref } } };
    const { document, named } = inlineNonComponentSchemaRefs(doc({ '/loop': post(loop), '/other': post({ $ref: ref }) }));
    const name = 'paths._loop.post.requestBody.content.application_json.schema';
    expect(named).toEqual([{ ref, name }]);
    const schemas = (document as { components: { schemas: Record<string, unknown> } }).components.schemas;
    expect(schemas[name]).toEqual({ type: 'object', properties: { next: { $ref: `#/components/schemas/${name}` } } });
    expect(bodyOf(document, '/other')).toEqual({ $ref: `#/components/schemas/${name}` });
    expect(bodyOf(document, '/loop')).toEqual({ type: 'object', properties: { next: { $ref: `#/components/schemas/${name}` } } });
  });

  it.each([
    // Codat's Report: a report component lists its components
    [
      'a recursive definition',
      {
        Report: {
          definitions: {
            part: {
              type: 'object',
              properties: { parts: { type: 'array', items: { $ref: '#/components/schemas/Report/definitions/part' } } },
            },
          },
          properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Report/definitions/part' } } },
        },
      },
      'Report.definitions.part',
      '#/components/schemas/Report/definitions/part',
    ],
    [
      'a name the document has already (numbered)',
      {
        'Report.definitions.part': { type: 'string' },
        Report: { definitions: { part: { properties: { parts: { items: { $ref: '#/components/schemas/Report/definitions/part' } } } } } },
      },
      'Report.definitions.part2',
      '#/components/schemas/Report/definitions/part',
    ],
  ])('names %s under a component (D472)', (_, schemas, name, ref) => {
    const input: Record<string, unknown> = { openapi: '3.0.3', paths: {}, components: { schemas } };
    const { document, named } = inlineNonComponentSchemaRefs(input);
    expect(named).toEqual([{ ref, name }]);
    const out = (document as unknown as { components: { schemas: Record<string, { properties: { parts: { items: unknown } } }> } })
      .components.schemas;
    expect(out[name]!.properties.parts.items).toEqual({ $ref: `#/components/schemas/${name}` });
  });

  it('copies a ref nested in a property named like a value keyword (`default`, `x-a`, `enum`) (D473)', () => {
    const schema = {
      type: 'object',
      properties: {
        default: { $ref: '#/components/parameters/Account/schema' },
        'x-a': { $ref: '#/components/parameters/Account/schema' },
      },
    };
    const { document } = inlineNonComponentSchemaRefs(doc({ '/other': post(schema) }));
    const copy = { type: 'string', maxLength: 8 };
    expect(bodyOf(document, '/other')).toEqual({ type: 'object', properties: { default: copy, 'x-a': copy } });
  });

  it('leaves a default value alone, even one shaped like a ref', () => {
    const schema = { type: 'object', default: { $ref: '#/components/parameters/Account/schema' } };
    const input = doc({ '/other': post(schema) });
    expect(inlineNonComponentSchemaRefs(input).document).toBe(input);
  });
});
