/**
 * The Zod plugin on the typed schema model (D377; D475 typed schema model with one walker, a node beside every raw schema): a table of component schemas and the Zod expression each
 * becomes, read from the plugin's output for a one-schema document (compiling and parsing are
 * test/generators/zod-plugin.test.ts's).
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '../model/build.js';
import type { PluginContext } from './api.js';
import { zodPlugin } from './zod.js';

async function zodOf(schema: unknown, openapi = '3.1.0', more: Record<string, unknown> = {}): Promise<string> {
  const model = buildModel(
    { openapi, info: { title: 'T', version: '1' }, paths: {}, components: { schemas: { X: schema, ...more } } },
    { source: 'openapi.yaml' },
  );
  let text = '';
  const ctx = { file: (_file: string, contents: string) => (text = contents), contractImport: () => './contract/index.js' };
  await zodPlugin().emit(model, ctx as unknown as PluginContext);
  const line = text.split('\n').find((l) => l.startsWith('export const XSchema'))!;
  return line.slice(line.indexOf('=> ') + 3, line.lastIndexOf(') as unknown as'));
}

const TABLE: [string, unknown, string][] = [
  ['true', true, 'z.unknown()'],
  ['false', false, 'z.never()'],
  ['3.0 nullable string', { type: 'string', nullable: true, minLength: 1 }, 'z.string().min(1).nullable()'],
  ['3.1 type array with null: the same', { type: ['string', 'null'], minLength: 1 }, 'z.string().min(1).nullable()'],
  ['3.1 two types', { type: ['string', 'integer'] }, 'z.union([z.string(), z.number().int()])'],
  ['3.0 exclusive bounds', { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 9 }, 'z.number().gt(0).lte(9)'],
  ['3.1 exclusive bounds', { type: 'integer', exclusiveMinimum: 0, multipleOf: 5 }, 'z.number().int().gt(0).multipleOf(5)'],
  ['string enum', { type: 'string', enum: ['a', 'b'] }, 'z.enum(["a", "b"])'],
  ['mixed enum', { enum: ['a', 1, null] }, 'z.union([z.literal("a"), z.literal(1), z.null()])'],
  ['const', { const: 3 }, 'z.literal(3)'],
  [
    'object: required, optional, additionalProperties false',
    { type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'boolean' } }, additionalProperties: false },
    'z.strictObject({ "a": z.string(), "b": z.boolean().optional() })',
  ],
  [
    'object: additionalProperties schema',
    { type: 'object', additionalProperties: { type: 'integer' } },
    'z.object({  }).catchall(z.number().int())',
  ],
  ['object: additionalProperties {} keeps extra keys', { type: 'object', additionalProperties: {} }, 'z.looseObject({  })'],
  ['array with bounds', { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 }, 'z.array(z.string()).min(1).max(2)'],
  ['tuple', { type: 'array', prefixItems: [{ type: 'string' }], items: false }, 'z.tuple([z.string()])'],
  ['ref', { $ref: '#/components/schemas/Y' }, 'YSchema'],
  ['oneOf', { oneOf: [{ $ref: '#/components/schemas/Y' }, { type: 'null' }] }, 'z.union([YSchema, z.null()])'],
  [
    'own keywords beside allOf and not: the not adds nothing',
    { type: 'object', properties: { a: { type: 'string' } }, allOf: [{ $ref: '#/components/schemas/Y' }], not: { required: ['b'] } },
    'z.intersection(z.looseObject({ "a": z.string().optional() }), YSchema)',
  ],
  ['not alone accepts anything', { not: { type: 'string' } }, 'z.unknown()'],
  ['an inlined $ref outside the components', { $ref: '#/components/schemas/Y/properties/id' }, 'z.string()'],
];

describe('the Zod plugin reads typed nodes', () => {
  it.each(TABLE)('%s', async (_what, schema, expected) => {
    expect(await zodOf(schema, '3.1.0', { Y: { type: 'object', properties: { id: { type: 'string' } } } })).toBe(expected);
  });
});
