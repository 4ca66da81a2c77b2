/**
 * The typed schema builder (D475-D478): a table of small schemas and the nodes they become, then what the document
 * adds (named schemas built once, refs, discriminators, cycles) and what the model carries.
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '../build.js';
import { buildSchemaNode, SchemaNodeBuilder } from './build.js';

const AT = '#/components/schemas/X';
const base = (pointer = AT, more: object = {}) => ({ pointer, nullable: false, annotations: {}, extensions: {}, ...more });
const string = (more: object = {}, pointer = AT) => ({
  kind: 'string',
  ...base(pointer),
  format: undefined,
  minLength: undefined,
  maxLength: undefined,
  pattern: undefined,
  contentMediaType: undefined,
  contentEncoding: undefined,
  ...more,
});
const number = (kind: 'number' | 'integer', more: object = {}, pointer = AT) => ({
  kind,
  ...base(pointer),
  format: undefined,
  minimum: undefined,
  maximum: undefined,
  exclusiveMinimum: undefined,
  exclusiveMaximum: undefined,
  multipleOf: undefined,
  ...more,
});
const object = (more: object = {}, pointer = AT) => ({
  kind: 'object',
  ...base(pointer),
  properties: [],
  required: [],
  additionalProperties: undefined,
  patternProperties: [],
  propertyNames: undefined,
  minProperties: undefined,
  maxProperties: undefined,
  discriminator: undefined,
  ...more,
});
const array = (more: object = {}, pointer = AT) => ({
  kind: 'array',
  ...base(pointer),
  items: undefined,
  prefixItems: undefined,
  minItems: undefined,
  maxItems: undefined,
  uniqueItems: false,
  contains: undefined,
  ...more,
});
const ref = (name: string, pointer: string) => ({ kind: 'ref', ...base(pointer), name, ref: `#/components/schemas/${name}` });

/** [what, raw schema, expected node] built at {@link AT} in a document whose components hold Cat, Dog and Bird. */
const TABLE: [string, unknown, unknown][] = [
  ['true is unknown', true, { kind: 'unknown', ...base() }],
  ['{} is unknown', {}, { kind: 'unknown', ...base() }],
  ['false is never', false, { kind: 'never', ...base() }],
  [
    'annotations alone are unknown',
    { description: 'anything' },
    { kind: 'unknown', ...base(AT, { annotations: { description: 'anything' } }) },
  ],
  [
    'a string with its constraints and format',
    { type: 'string', minLength: 1, maxLength: 9, pattern: '^a', format: 'email' },
    string({ minLength: 1, maxLength: 9, pattern: '^a', format: 'email' }),
  ],
  ['3.0 nullable', { type: 'string', nullable: true }, string({ nullable: true })],
  ['3.1 type array with null: the same node as 3.0 nullable', { type: ['string', 'null'] }, string({ nullable: true })],
  ['3.1 null alone', { type: 'null' }, { kind: 'null', ...base() }],
  [
    '3.1 type array of two types: a union of one variant per type, keywords shared',
    { type: ['string', 'integer', 'null'], minLength: 2, minimum: 1 },
    {
      kind: 'union',
      ...base(AT, { nullable: true }),
      combinator: 'type',
      variants: [string({ minLength: 2 }), number('integer', { minimum: 1 })],
      discriminator: undefined,
    },
  ],
  [
    '3.0 exclusive bounds normalised to 3.1 numbers',
    { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, multipleOf: 0.5 },
    number('number', { exclusiveMinimum: 0, maximum: 10, multipleOf: 0.5 }),
  ],
  [
    '3.1 exclusive bounds',
    { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 5 },
    number('integer', { exclusiveMinimum: 0, exclusiveMaximum: 5 }),
  ],
  ['boolean', { type: 'boolean' }, { kind: 'boolean', ...base() }],
  [
    'enum keeps its values and declared type',
    { type: 'string', enum: ['a', 'b'] },
    { kind: 'enum', ...base(), values: ['a', 'b'], types: ['string'] },
  ],
  [
    'nullable enum (3.0)',
    { type: 'string', enum: ['a', null], nullable: true },
    { kind: 'enum', ...base(AT, { nullable: true }), values: ['a', null], types: ['string'] },
  ],
  ['const', { const: 'fixed' }, { kind: 'const', ...base(), value: 'fixed', types: [] }],
  ['const keeps its declared type', { type: 'string', const: 'fixed' }, { kind: 'const', ...base(), value: 'fixed', types: ['string'] }],
  [
    'object: properties in declaration order with their required flag; additionalProperties false is never',
    { type: 'object', properties: { b: { type: 'string' }, a: true }, required: ['a', 'missing'], additionalProperties: false },
    object({
      properties: [
        { name: 'b', required: false, node: string({}, `${AT}/properties/b`) },
        { name: 'a', required: true, node: { kind: 'unknown', ...base(`${AT}/properties/a`) } },
      ],
      required: ['a', 'missing'],
      additionalProperties: { kind: 'never', ...base(`${AT}/additionalProperties`) },
    }),
  ],
  [
    'object inferred from its keywords; pattern properties; names escaped in pointers',
    { patternProperties: { '^x/': { type: 'integer' } }, properties: { 'a/b~c': { type: 'boolean' } }, minProperties: 1 },
    object({
      properties: [{ name: 'a/b~c', required: false, node: { kind: 'boolean', ...base(`${AT}/properties/a~1b~0c`) } }],
      patternProperties: [{ pattern: '^x/', node: number('integer', {}, `${AT}/patternProperties/^x~1`) }],
      minProperties: 1,
    }),
  ],
  [
    'array: items, bounds, uniqueItems',
    { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3, uniqueItems: true },
    array({ items: string({}, `${AT}/items`), minItems: 1, maxItems: 3, uniqueItems: true }),
  ],
  [
    'array: prefixItems and items false',
    { type: 'array', prefixItems: [{ type: 'string' }], items: false },
    array({ prefixItems: [string({}, `${AT}/prefixItems/0`)], items: { kind: 'never', ...base(`${AT}/items`) } }),
  ],
  [
    'draft-04 tuple items are prefixItems, additionalItems the rest',
    { items: [{ type: 'boolean' }], additionalItems: { type: 'string' } },
    array({ prefixItems: [{ kind: 'boolean', ...base(`${AT}/items/0`) }], items: string({}, `${AT}/additionalItems`) }),
  ],
  [
    'a $ref to a component schema is a ref node naming it; sibling annotations stay on the ref',
    { $ref: '#/components/schemas/Cat', description: 'the pet' },
    { ...ref('Cat', AT), annotations: { description: 'the pet' } },
  ],
  [
    'oneOf with a discriminator: declared mapping (a $ref and a bare name), then the implicit value of the other variant',
    {
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }, { $ref: '#/components/schemas/Bird' }],
      discriminator: { propertyName: 'pet_type', mapping: { cat: '#/components/schemas/Cat', dog: 'Dog' } },
    },
    {
      kind: 'union',
      ...base(),
      combinator: 'oneOf',
      variants: [ref('Cat', `${AT}/oneOf/0`), ref('Dog', `${AT}/oneOf/1`), ref('Bird', `${AT}/oneOf/2`)],
      discriminator: {
        propertyName: 'pet_type',
        mapping: [
          { value: 'cat', name: 'Cat', ref: '#/components/schemas/Cat', declared: true },
          { value: 'dog', name: 'Dog', ref: '#/components/schemas/Dog', declared: true },
          { value: 'Bird', name: 'Bird', ref: '#/components/schemas/Bird', declared: false },
        ],
      },
    },
  ],
  [
    'anyOf alone is a union; nullable on it',
    { anyOf: [{ type: 'string' }], nullable: true },
    {
      kind: 'union',
      ...base(AT, { nullable: true }),
      combinator: 'anyOf',
      variants: [string({}, `${AT}/anyOf/0`)],
      discriminator: undefined,
    },
  ],
  [
    'allOf alone keeps its members',
    { allOf: [{ $ref: '#/components/schemas/Cat' }, { required: ['name'] }] },
    { kind: 'allOf', ...base(), members: [ref('Cat', `${AT}/allOf/0`), object({ required: ['name'] }, `${AT}/allOf/1`)] },
  ],
  [
    'own keywords beside combinators: an allOf of own, members, unions and not (D478)',
    {
      type: 'object',
      properties: { id: { type: 'string' } },
      allOf: [{ $ref: '#/components/schemas/Cat' }],
      oneOf: [{ type: 'object' }],
      not: { type: 'null' },
    },
    {
      kind: 'allOf',
      ...base(),
      members: [
        object({ properties: [{ name: 'id', required: false, node: string({}, `${AT}/properties/id`) }] }),
        ref('Cat', `${AT}/allOf/0`),
        { kind: 'union', ...base(), combinator: 'oneOf', variants: [object({}, `${AT}/oneOf/0`)], discriminator: undefined },
        { kind: 'not', ...base(), node: { kind: 'null', ...base(`${AT}/not`) } },
      ],
    },
  ],
  ['not alone', { not: { type: 'string' } }, { kind: 'not', ...base(), node: string({}, `${AT}/not`) }],
  [
    'annotations and extensions',
    { type: 'boolean', title: 'T', default: null, example: true, deprecated: true, readOnly: true, 'x-b': 2, 'x-a': 1 },
    {
      kind: 'boolean',
      ...base(AT, {
        annotations: { title: 'T', default: null, examples: [true], deprecated: true, readOnly: true },
        extensions: { 'x-a': 1, 'x-b': 2 },
      }),
    },
  ],
  [
    '3.1 examples and writeOnly',
    { type: 'string', examples: ['a', 'b'], writeOnly: true },
    string({ annotations: { examples: ['a', 'b'], writeOnly: true } }),
  ],
];

const PETS = {
  components: {
    schemas: {
      Cat: { type: 'object', properties: { pet_type: { type: 'string' } } },
      Dog: { type: 'object' },
      Bird: { type: 'object' },
    },
  },
};

describe('buildSchemaNode: raw schema -> typed node', () => {
  it.each(TABLE)('%s', (_what, raw, expected) => {
    expect(buildSchemaNode(PETS, raw, AT)).toEqual(expected);
  });
});

describe('SchemaNodeBuilder on a document', () => {
  const doc = {
    components: {
      schemas: {
        Tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } },
        'a/b': { type: 'string' },
        Base: {
          type: 'object',
          properties: { kind: { type: 'string' } },
          discriminator: { propertyName: 'kind', mapping: { leaf: '#/components/schemas/Tree' } },
        },
        Holder: { type: 'object', properties: { inner: { $ref: '#/components/schemas/Tree/properties/children' } } },
        Loop: { $ref: '#/$defs/a' },
      },
    },
    $defs: { a: { type: 'array', items: { $ref: '#/$defs/b' } }, b: { anyOf: [{ $ref: '#/$defs/a' }] } },
  };

  it('builds a recursive schema once: the recursion is a ref node naming it', () => {
    const builder = new SchemaNodeBuilder(doc);
    const tree = builder.namedNode('Tree')!;
    expect(builder.namedNode('Tree')).toBe(tree);
    expect(tree.kind === 'object' && tree.properties[0]!.node).toMatchObject({
      kind: 'array',
      pointer: '#/components/schemas/Tree/properties/children',
      items: { kind: 'ref', name: 'Tree', pointer: '#/components/schemas/Tree/properties/children/items' },
    });
    expect(builder.namedSchemas().map((s) => [s.name, s.ref])).toEqual([
      ['Base', '#/components/schemas/Base'],
      ['Holder', '#/components/schemas/Holder'],
      ['Loop', '#/components/schemas/Loop'],
      ['Tree', '#/components/schemas/Tree'],
      ['a/b', '#/components/schemas/a~1b'],
    ]);
  });

  it('resolves refs with escaped and percent-encoded names to the component name', () => {
    const builder = new SchemaNodeBuilder(doc);
    expect(builder.build({ $ref: '#/components/schemas/a~1b' }, '#/x')).toMatchObject({
      kind: 'ref',
      name: 'a/b',
      ref: '#/components/schemas/a~1b',
    });
    expect(builder.build({ $ref: '#/components/schemas/a%2Fb' }, '#/x')).toMatchObject({ kind: 'ref', name: 'a/b' });
  });

  it('keeps a discriminator without oneOf on the base object (the allOf style)', () => {
    expect(new SchemaNodeBuilder(doc).namedNode('Base')).toMatchObject({
      kind: 'object',
      discriminator: { propertyName: 'kind', mapping: [{ value: 'leaf', name: 'Tree', declared: true }] },
    });
  });

  it('inlines a $ref to something that is not a component schema, at the target pointer (D476)', () => {
    const holder = new SchemaNodeBuilder(doc).namedNode('Holder')!;
    expect(holder.kind === 'object' && holder.properties[0]!.node).toMatchObject({
      kind: 'array',
      pointer: '#/components/schemas/Tree/properties/children',
      items: { kind: 'ref', name: 'Tree' },
    });
  });

  it("keeps the annotations written beside an inlined $ref over its target's (D476)", () => {
    const document = {
      components: { schemas: { Money: { type: 'object', properties: { currency: { type: 'string', description: 'ISO 4217' } } } } },
    };
    const builder = new SchemaNodeBuilder(document);
    const ref = { $ref: '#/components/schemas/Money/properties/currency', description: 'Currency of the refund', deprecated: true };
    expect(builder.build(ref, '#/x')).toMatchObject({
      kind: 'string',
      pointer: '#/components/schemas/Money/properties/currency',
      annotations: { description: 'Currency of the refund', deprecated: true },
    });
    // the target itself, and a later bare $ref to it, keep the target's own
    expect(builder.build({ $ref: '#/components/schemas/Money/properties/currency' }, '#/y').annotations).toEqual({
      description: 'ISO 4217',
    });
  });

  it('ends a cycle of inlined refs in an unknown node', () => {
    expect(new SchemaNodeBuilder(doc).namedNode('Loop')).toEqual({
      kind: 'array',
      ...base('#/$defs/a'),
      items: {
        kind: 'union',
        ...base('#/$defs/b'),
        combinator: 'anyOf',
        variants: [{ kind: 'unknown', ...base('#/$defs/b/anyOf/0') }],
        discriminator: undefined,
      },
      prefixItems: undefined,
      minItems: undefined,
      maxItems: undefined,
      uniqueItems: false,
      contains: undefined,
    });
  });

  it('ends a cycle of shared objects (a parsed AsyncAPI payload) in an unknown node', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).self = node;
    const built = buildSchemaNode({}, node, '#/x');
    expect(built.kind === 'object' && built.properties[0]!.node).toEqual({ kind: 'unknown', ...base('#/x/properties/self') });
  });

  it('leaves a $ref it cannot resolve as unknown', () => {
    expect(buildSchemaNode(doc, { $ref: '#/nowhere' }, '#/x')).toEqual({ kind: 'unknown', ...base('#/x') });
    expect(buildSchemaNode(doc, { $ref: 'other.yaml#/A' }, '#/x')).toEqual({ kind: 'unknown', ...base('#/x') });
  });
});

describe('the model carries typed nodes beside the raw schemas', () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 'T', version: '1' },
    paths: {
      '/pets/{id}': {
        parameters: [{ $ref: '#/components/parameters/Id' }],
        put: {
          operationId: 'putPet',
          parameters: [{ name: 'dry', in: 'query', schema: { type: 'boolean' } }],
          requestBody: { $ref: '#/components/requestBodies/Pet' },
          responses: {
            '200': {
              description: 'ok',
              headers: { 'X-Rate': { schema: { type: 'integer', nullable: true } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: { Pet: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
      parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } } },
      requestBodies: { Pet: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
    },
  };
  const model = buildModel(document, { source: 'openapi.yaml' });
  const op = model.operations[0]!;

  it('names every component schema once, raw and typed', () => {
    expect(model.schemas.map((s) => [s.name, s.schema === document.components.schemas.Pet, s.node.kind])).toEqual([
      ['Pet', true, 'object'],
    ]);
  });

  it('gives bodies, parameters and headers their node at the pointer where the schema is written', () => {
    expect(op.requestBody!.content[0]!.node).toEqual(ref('Pet', '#/components/requestBodies/Pet/content/application~1json/schema'));
    expect(op.responses[0]!.content[0]!.node).toEqual(
      ref('Pet', '#/paths/~1pets~1{id}/put/responses/200/content/application~1json/schema'),
    );
    expect(op.responses[0]!.content[0]!.schema).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(op.responses[0]!.headers[0]!.node).toEqual(
      number('integer', { nullable: true }, '#/paths/~1pets~1{id}/put/responses/200/headers/X-Rate/schema'),
    );
    expect(op.parameters.path[0]!.node).toEqual(string({ format: 'uuid' }, '#/components/parameters/Id/schema'));
    expect(op.parameters.query[0]!.node).toEqual({ kind: 'boolean', ...base('#/paths/~1pets~1{id}/put/parameters/0/schema') });
  });

  it('gives a webhook payload its node, where the payload schema is written', () => {
    const withWebhook = buildModel(
      {
        ...document,
        openapi: '3.1.0',
        webhooks: {
          petAdded: {
            post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } }, responses: {} },
          },
        },
      },
      { source: 'openapi.yaml' },
    );
    expect(withWebhook.webhooks.map((e) => [e.eventType, e.node])).toEqual([
      ['petAdded', ref('Pet', '#/webhooks/petAdded/post/requestBody/content/application~1json/schema')],
    ]);
  });

  it('types a path parameter the spec forgot to declare as a string at its path', () => {
    const undeclared = buildModel(
      { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: { '/a/{x}': { get: { responses: {} } } } },
      { source: 'openapi.yaml' },
    );
    expect(undeclared.operations[0]!.parameters.path[0]!.node).toEqual(string({}, '#/paths/~1a~1{x}'));
  });

  it('builds a node when first read and keeps it', () => {
    expect(model.schemas[0]!.node).toBe(model.schemas[0]!.node);
    expect(op.requestBody!.content[0]!.node).toBe(op.requestBody!.content[0]!.node);
    expect(op.parameters.query[0]!.node).toBe(op.parameters.query[0]!.node);
  });

  it('leaves the nodes out of JSON.stringify(model) (a digest of the model neither builds nor grows); a node is plain data', () => {
    const fresh = buildModel(document, { source: 'openapi.yaml' });
    expect(JSON.stringify(fresh)).toBe(JSON.stringify(model));
    expect(JSON.stringify(fresh)).not.toContain('"node"');
    expect(JSON.parse(JSON.stringify(fresh.schemas[0]!.node))).toEqual(fresh.schemas[0]!.node);
  });
});
