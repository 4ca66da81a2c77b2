/**
 * D162: the type layer calls openapi-typescript's transform itself; its output must stay what `openapiTS` (validate,
 * bundle, transform) prints for the same bundled document and options, and the shared document must stay unmutated.
 */
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { loadOpenApi } from '../parse/openapi.js';
import { TYPE_LAYER_OPTIONS, typeScriptOf } from './type-layer.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const discriminated = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          default: { description: 'error', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
  webhooks: {
    petAdded: {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Cat' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
      },
      Cat: { type: 'object', required: ['name'], properties: { name: { type: 'string', default: 'Tom' }, meta: { type: 'object' } } },
      Dog: {
        allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { bark: { type: 'boolean', nullable: true } } }],
      },
      Base: {
        type: 'object',
        properties: { kind: { type: 'string' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
      },
    },
  },
};

async function bundled(file: string): Promise<Record<string, unknown>> {
  return (await loadOpenApi({ input: file, lint: 'skip', cwd: ROOT })).document;
}

describe('type layer (D162)', () => {
  it.each([
    ['a discriminated union with webhooks, defaults and free-form objects', async () => discriminated],
    ["Paygate's spec", () => bundled('openapi/openapi.yaml')],
    ['Adyen Checkout', () => bundled('test/fixtures/realworld/adyen-checkout/openapi.json')],
    ['PayPal Orders', () => bundled('test/fixtures/realworld/paypal-checkout-orders/openapi.json')],
  ])('%s: the same text as openapiTS on the same document, and the document left as it was', async (_name, load) => {
    const document = await load();
    const before = JSON.stringify(document);
    const expected = astToString(await openapiTS(structuredClone(document) as unknown as OpenAPI3, TYPE_LAYER_OPTIONS));
    expect(typeScriptOf(document)).toBe(expected);
    expect(JSON.stringify(document)).toBe(before);
  });
});
