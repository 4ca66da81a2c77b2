/**
 * The type layer by unit (D441 the type layer rebuilt per unit from openapi-typescript's transforms) writes the bytes of the whole-document type layer (`typeScriptOf`), on every real-world
 * spec of the repository and on a document built to exercise discriminators, before and after edits, while
 * transforming again only the units an edit reached.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REALWORLD_SPECS } from '../../../test/fixtures/realworld/specs.js';
import { typeScriptOf } from '../util/type-layer.js';
import { TypeLayerCache } from './type-layer-cache.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

// biome-ignore lint/suspicious/noExplicitAny: the test edits arbitrary JSON documents in place
type Doc = Record<string, any>;

function read(file: string): Doc {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Doc;
}

const firstSchemaWithProperties = (doc: Doc): string =>
  Object.keys(doc.components.schemas)
    .filter((n) => doc.components.schemas[n].properties !== undefined)
    .sort()[0]!;

describe('TypeLayerCache: the bytes of typeScriptOf, one unit at a time', () => {
  for (const spec of REALWORLD_SPECS.filter((s) => s.name !== 'stripe')) {
    it(`${spec.label}: first run, an added property, an edited operation, a removed schema`, { timeout: 240_000 }, () => {
      const doc = read(spec.openapi);
      const before = JSON.stringify(doc);
      const cache = new TypeLayerCache();
      expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
      expect(JSON.stringify(doc)).toBe(before); // the document is read, never patched
      const units = cache.lastRun.transformed;

      const name = firstSchemaWithProperties(doc);
      doc.components.schemas[name].properties.bench_note = { type: 'string', description: 'Added by the test.' };
      expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
      // the edited schema, and whatever resolved a ref into it (a discriminator's allOf)
      expect(cache.lastRun.transformed).toBeLessThan(units / 4);
      expect(cache.lastRun.transformed).toBeGreaterThanOrEqual(1);

      const [firstPath] = Object.keys(doc.paths).sort();
      const item = doc.paths[firstPath!];
      const method = Object.keys(item).find((k) => ['get', 'post', 'put', 'delete', 'patch'].includes(k))!;
      item[method].description = 'Edited by the test.';
      expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));

      const last = Object.keys(doc.components.schemas).sort().pop()!;
      delete doc.components.schemas[last];
      expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
    });
  }

  it('a discriminator edit reaches the schemas it maps; a resolved ref is a read', () => {
    const doc: Doc = {
      openapi: '3.1.0',
      info: { title: 'Pets', version: '1' },
      paths: {
        '/pets': {
          get: {
            operationId: 'listPets',
            parameters: [{ $ref: '#/components/parameters/Limit' }],
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
          },
        },
      },
      components: {
        parameters: { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } },
        schemas: {
          Pet: {
            oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
            discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
          },
          Cat: { type: 'object', properties: { kind: { type: 'string' }, lives: { type: 'integer' } } },
          Dog: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { barks: { type: 'boolean' } } }] },
          Base: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } }, discriminator: { propertyName: 'kind' } },
        },
      },
    };
    const cache = new TypeLayerCache();
    expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
    doc.components.schemas.Pet.discriminator.mapping.cat = '#/components/schemas/Dog';
    expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
    doc.components.parameters.Limit.in = 'header';
    expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
    doc.components.schemas.Cat.properties.lives.type = 'number';
    expect(cache.typeScriptOf(doc)).toBe(typeScriptOf(doc));
    expect(cache.lastRun.transformed).toBe(1);
  });
});
