/**
 * The runtime document (D158 runtime document without prose): prose, examples and foreign extensions go; everything a runtime reads stays, and names
 * that look like annotations (a property `description`, a header `summary`) are data, not dropped.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runtimeDocument } from './runtime-document.js';
import { unescapePointerToken } from '../util/json.js';

const doc = {
  openapi: '3.1.0',
  info: { title: 'T', version: '1', description: 'long prose', 'x-logo': { url: 'x' } },
  tags: [{ name: 'a', description: 'tag prose' }],
  externalDocs: { url: 'https://example.com' },
  servers: [{ url: '/v1', description: 'prod', variables: { region: { default: 'eu', enum: ['eu', 'us'], description: 'where' } } }],
  'x-webhook-delivery': { attempts: 3 },
  paths: {
    '/items/{id}': {
      summary: 'item',
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'the id', example: 'i_1', schema: { type: 'string', title: 'Id' } },
      ],
      get: {
        operationId: 'getItem',
        summary: 'Get',
        description: 'Gets',
        tags: ['a'],
        'x-codeSamples': [{ lang: 'sh', source: 'curl' }],
        'x-allow-unknown-query-parameters': true,
        'x-eov-operation-id': 'getItem',
        security: [{ key: [] }],
        responses: {
          '200': {
            description: 'ok',
            headers: { summary: { description: 'a header named summary', schema: { type: 'string' } } },
            content: {
              'application/json': {
                example: { id: 'i_1' },
                examples: { one: { $ref: '#/components/examples/one' } },
                schema: { $ref: '#/components/schemas/Item' },
              },
            },
          },
        },
      },
    },
  },
  components: {
    examples: { one: { value: { id: 'i_1' } } },
    schemas: {
      Item: {
        type: 'object',
        title: 'Item',
        description: 'An item',
        required: ['id', 'description'],
        'x-paygate-error': { code: '/code' },
        'x-internal': true,
        properties: {
          id: { type: 'string', pattern: '^i_', examples: ['i_1'] },
          description: { type: 'string', description: 'a property named description', default: 'none' },
          kind: { enum: ['a', 'b'], const: undefined, discriminator: undefined },
          meta: { type: 'object', additionalProperties: { type: 'string', description: 'value' } },
          choice: { oneOf: [{ type: 'string', description: 'x' }, { type: 'integer' }], discriminator: { propertyName: 'description' } },
        },
        default: { description: 'a value is data' },
      },
    },
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-Key', description: 'the key' },
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/t', scopes: { read: 'read things' } } } },
    },
  },
};

const item = (d: Record<string, unknown>) =>
  ((d.components as Record<string, unknown>).schemas as Record<string, Record<string, unknown>>).Item!;

describe('runtimeDocument (D158)', () => {
  const slim = runtimeDocument(doc);

  it('drops prose, examples, tags, externalDocs and foreign x-* extensions everywhere', () => {
    const text = JSON.stringify(slim);
    for (const gone of [
      'long prose',
      'tag prose',
      'Gets',
      '"Get"',
      'curl',
      'x-logo',
      'x-codeSamples',
      'x-internal',
      'x-webhook-delivery',
      'i_1',
      '"title":"Item"',
      'the key',
      'where',
    ])
      expect(text, gone).not.toContain(gone);
    expect(slim).not.toHaveProperty('tags');
    expect(slim).not.toHaveProperty('externalDocs');
    expect(slim.components).not.toHaveProperty('examples');
  });

  it.each([
    ['the toolkit’s own x-paygate-* extensions', (d: Record<string, unknown>) => item(d)['x-paygate-error'], { code: '/code' }],
    [
      'the extensions express-openapi-validator reads',
      (d: Record<string, unknown>) => {
        const op = (d.paths as Record<string, Record<string, Record<string, unknown>>>)['/items/{id}']!.get!;
        return [op['x-allow-unknown-query-parameters'], op['x-eov-operation-id']];
      },
      [true, 'getItem'],
    ],
    [
      'a property named description (data), with its keywords',
      (d: Record<string, unknown>) => (item(d).properties as Record<string, unknown>).description,
      { type: 'string', default: 'none' },
    ],
    ['required names', (d: Record<string, unknown>) => item(d).required, ['id', 'description']],
    [
      'a default value whose keys look like annotations',
      (d: Record<string, unknown>) => item(d).default,
      { description: 'a value is data' },
    ],
    [
      'validation keywords',
      (d: Record<string, unknown>) => (item(d).properties as Record<string, unknown>).id,
      { type: 'string', pattern: '^i_' },
    ],
    [
      'subschemas under additionalProperties and oneOf, the discriminator',
      (d: Record<string, unknown>) => (item(d).properties as Record<string, Record<string, unknown>>).choice,
      { oneOf: [{ type: 'string' }, { type: 'integer' }], discriminator: { propertyName: 'description' } },
    ],
    [
      'a header named summary',
      (d: Record<string, unknown>) =>
        Object.keys(
          (
            (d.paths as Record<string, Record<string, Record<string, unknown>>>)['/items/{id}']!.get!.responses as Record<
              string,
              Record<string, unknown>
            >
          )['200']!.headers as object,
        ),
      ['summary'],
    ],
    [
      'security requirements and scopes',
      (d: Record<string, unknown>) => [
        (d.paths as Record<string, Record<string, Record<string, unknown>>>)['/items/{id}']!.get!.security,
        (d.components as Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>).securitySchemes!.oauth!
          .flows!.clientCredentials!.scopes,
      ],
      [[{ key: [] }], { read: 'read things' }],
    ],
    [
      'server variables’ enum and default',
      (d: Record<string, unknown>) =>
        ((d.servers as Record<string, Record<string, unknown>>[])[0]!.variables as Record<string, unknown>).region,
      { default: 'eu', enum: ['eu', 'us'] },
    ],
    [
      'parameters with their schemas',
      (d: Record<string, unknown>) => (d.paths as Record<string, Record<string, unknown>>)['/items/{id}']!.parameters,
      [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    ],
  ])('keeps %s', (_label, pick, expected) => {
    expect(pick(slim)).toEqual(expected);
  });

  it('keeps examples when the spec says so (info.x-embedded-examples: true), prose still dropped', () => {
    const kept = runtimeDocument({ ...doc, info: { ...doc.info, 'x-embedded-examples': true } });
    const media = (
      (kept.paths as Record<string, Record<string, Record<string, unknown>>>)['/items/{id}']!.get!.responses as Record<
        string,
        Record<string, Record<string, Record<string, unknown>>>
      >
    )['200']!.content!['application/json']!;
    expect(media.example).toEqual({ id: 'i_1' });
    expect((kept.components as Record<string, unknown>).examples).toEqual({ one: { value: { id: 'i_1' } } });
    expect(JSON.stringify(kept)).not.toContain('long prose');
  });

  it('does not change its input', () => {
    const before = JSON.stringify(doc);
    runtimeDocument(doc);
    expect(JSON.stringify(doc)).toBe(before);
  });

  it('on a real spec (Adyen Checkout): every $ref still resolves, and less than half the bytes remain', () => {
    const full = JSON.parse(readFileSync('test/fixtures/realworld/adyen-checkout/openapi.json', 'utf8')) as Record<string, unknown>;
    const runtime = runtimeDocument(full);
    const refs = [...JSON.stringify(runtime).matchAll(/"\$ref":"(#[^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (at, t) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[unescapePointerToken(t)] : undefined),
          runtime,
        );
      expect(target, ref).toBeDefined();
    }
    expect(JSON.stringify(runtime).length).toBeLessThan(JSON.stringify(full).length / 2);
  });
});
