/**
 * D162: the type layer calls openapi-typescript's transform itself; its output must stay what `openapiTS` (validate,
 * bundle, transform) prints for the same bundled document and options, and the shared document must stay unmutated.
 */
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { loadOpenApi } from '../parse/openapi.js';
import { nullableHelpers, TYPE_LAYER_OPTIONS, typeScriptOf } from './type-layer.js';

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

/** A document whose component schemas are `schemas`, typed by the type layer. */
const typesOf = (schemas: Record<string, unknown>): string =>
  nullableHelpers(typeScriptOf({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths: {}, components: { schemas } }));

describe('type layer fixes (D474, D481)', () => {
  it.each([
    ['over a nullable schema (Plaid)', { nullable: true }],
    ['over a schema that is not nullable', {}],
  ])('WithRequired accepts a nullable or optional member: `required` %s', (_, extra) => {
    const types = typesOf({
      Problem: { type: 'object', properties: { code: { type: 'string' } }, ...extra },
      Cause: { type: 'object', allOf: [{ $ref: '#/components/schemas/Problem' }], required: ['code'] },
    });
    expect(types).toContain('WithRequired<components["schemas"]["Problem"], "code">');
    expect(types).toContain('type WithRequired<T, K extends keyof NonNullable<T>> = T extends undefined ? never : T extends null ? T :');
    expect(types).not.toContain('K extends keyof T>');
  });

  it("declares a discriminator property once when the parent's child declares it itself (Apple's SiriKit)", () => {
    const types = typesOf({
      Result: {
        type: 'object',
        required: ['class'],
        properties: { class: { type: 'string' } },
        discriminator: { propertyName: 'class', mapping: { Other: '#/components/schemas/Other' } },
      },
      Other: { allOf: [{ $ref: '#/components/schemas/Result' }], type: 'object', properties: { note: { type: 'string' } } },
      Own: { allOf: [{ $ref: '#/components/schemas/Result' }], type: 'object', properties: { class: { type: 'string', enum: ['Own'] } } },
    });
    const own = types.slice(types.indexOf('Own: {'), types.indexOf('Result: {'));
    expect(own.match(/\bclass\??:/g)).toEqual(['class?:']);
    expect(own).toContain('Omit<components["schemas"]["Result"], "class">');
    // a child that does not declare it still gets openapi-typescript's property
    const other = types.slice(types.indexOf('Other: {'), types.indexOf('Own: {'));
    expect(other).toContain('class: "Other"');
  });
});
