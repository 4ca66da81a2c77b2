/**
 * Minimal reproductions of what the corpus run (`npm run corpus`, docs/corpus.md) found Paygate refusing or failing
 * to compile where openapi-typescript did not, generated with every target under `paygate generate`'s default lint
 * and compiled strictly through the shared harness (support/compile-generated.ts). Invented documents: the directory's
 * originals carry no licence to copy them here.
 * - sakari.io: a callback named `event` made its validator `validateEvent`, the name the webhooks index exports
 *   itself (TS2395, TS2440): it is `validateEventPayload` (D406 event validator names avoid index names).
 * - 1Password's Events API (`info.x-logo` as a URL string) and apideck's accounting API (`"x-sdk-exclude": true` in
 *   `x-webhooks`): Redocly's struct errors inside extensions refused the document; they warn (D405 struct errors inside extensions are warnings).
 * - Google Cloud Build (`"source": {"url": {}}` at the root): an unknown root field refused it; it warns (D407 unknown root fields are warnings).
 * - dev.to (`getArticles` paged, and `getArticlesAll` beside it) and Azure's subAssessments: the page helper
 *   `<method>All` met the other operation's method of the same name (TS1117); the helper's name is now taken.
 * - VTEX (a required `Content-Type` header parameter on GETs): its validator refused every GET; OpenAPI says such a
 *   parameter SHALL be ignored, and it is (D409 accept, Content-Type and Authorization parameters ignored).
 * - api.video (`"pattern": 0` on a string property): Redocly's struct error refused the document; a wrongly typed value
 *   keyword of a schema warns and is left out (D430 wrongly typed value keywords and refused defaults left out with a warning); so is a `default` its own schema refuses (Exhibit Day's
 *   `{type: number, default: 'false'}`, figshare's `order` default outside its enum), which the validators filled in
 *   and then refused.
 * - Codat (codat.io/assess: webhook payloads whose properties `$ref` a path parameter's schema, and schemas pointing into
 *   each other's `definitions` and `allOf`): the webhook validators refused the document, a request body holding such a ref went
 *   unvalidated and the types did not compile; each ref is a copy of its target (D452 schema refs outside components
 *   inlined; D412 a ref into a component schema's keywords is copied in place).
 * - The rest of the tsc errors both tools had: Codat's recursive `Report/definitions/reportComponent` (TS2339
 *   `definitions`: D472 a recursive schema under another is named by its pointer), a ref in a property named `default`
 *   that was never copied (Codat) and refs below an optional property (Twine Health: TS2339 on `T | undefined`; D473 a
 *   ref below a component's property is copied in place), `required` over a nullable or optional member (Plaid, Twine
 *   Health, Linode: TS2344 `never`; D474 WithRequired of a nullable or optional member) and a discriminated parent's
 *   child declaring the property itself (Apple's SiriKit: TS2300 duplicate `class`; D481 a schema's own discriminator
 *   property declared once).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAndCompile, type CompileOutcome } from './support/compile-generated.js';

const notification = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string' },
    companyId: { $ref: '#/components/parameters/companyId/schema' },
    code: { $ref: '#/components/schemas/Shared/allOf/0' },
  },
};

const spec = {
  openapi: '3.0.3',
  info: { title: 'Corpus regressions', version: '1.0.0', 'x-logo': 'https://example.com/logo.png' },
  paths: {
    '/notes': {
      get: {
        operationId: 'listNotes',
        parameters: [
          { name: 'Content-Type', in: 'header', required: true, schema: { type: 'string', enum: ['application/json'] } },
          { name: 'Accept', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'X-Account', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'general_only', in: 'header', schema: { type: 'number', default: 'false' } },
          { name: 'order', in: 'query', schema: { type: 'string', enum: ['published_date', 'views'], default: 'created_date' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/articles': {
      get: {
        operationId: 'getArticles',
        tags: ['articles'],
        parameters: [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'per_page', in: 'query', schema: { type: 'integer' } },
        ],
        'x-pagination': { strategy: 'page', items: '', pageParam: 'page', pageSizeParam: 'per_page', firstPage: 1 },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: notification } } } } },
      },
    },
    '/articles/all': {
      get: {
        operationId: 'getArticlesAll',
        tags: ['articles'],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: notification } } } } },
      },
    },
    '/thumbnails': {
      patch: {
        operationId: 'pickThumbnail',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thumbnail' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/webhooks': {
      post: {
        operationId: 'createWebhook',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', properties: { url: { type: 'string' } } } } },
        },
        responses: { '201': { description: 'created' } },
        callbacks: {
          event: {
            '{$request.body#/url}': {
              post: {
                requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Notification' } } } },
                responses: { '200': { description: 'received' } },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Notification: notification,
      Thumbnail: {
        type: 'object',
        required: ['timecode'],
        properties: {
          timecode: { type: 'string', pattern: 0 },
          label: { type: 'string', maxLength: '5', minLength: 1 },
          owner: { $ref: '#/components/parameters/companyId/schema' },
        },
      },
      Shared: { allOf: [{ type: 'string', maxLength: 4 }] },
      // codat.io/sync-for-commerce: a ref in a property named `default` (D473 a ref below a component's property is copied in place)
      Branding: {
        type: 'object',
        properties: { button: { type: 'object', properties: { default: { $ref: '#/components/parameters/companyId/schema' } } } },
      },
      // codat.io/assess: a report component lists report components (D472 a recursive schema under another is named by its pointer)
      // (there under `definitions`, a 3.1 keyword; `items` here)
      Report: {
        type: 'object',
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              properties: { parts: { type: 'array', items: { $ref: '#/components/schemas/Report/properties/data/items' } } },
            },
          },
        },
      },
      // twinehealth.com: refs below an optional property, and `required` over an optional member (D473 a ref below a component's property is copied in place; D474 WithRequired of a nullable or optional member)
      Resource: {
        type: 'object',
        properties: {
          attributes: { type: 'object', properties: { title: { type: 'string' }, start_at: { type: 'string' } } },
          relationships: { type: 'object', properties: { owner: { type: 'object', properties: { data: { type: 'string' } } } } },
        },
      },
      CreateResource: {
        type: 'object',
        properties: {
          attributes: { allOf: [{ $ref: '#/components/schemas/Resource/properties/attributes' }], required: ['title'] },
          owner: { $ref: '#/components/schemas/Resource/properties/relationships/properties/owner/properties/data' },
        },
      },
      // plaid.com: `required` over a nullable schema (D474 WithRequired of a nullable or optional member)
      Problem: { type: 'object', nullable: true, properties: { code: { type: 'string' } } },
      Cause: { type: 'object', allOf: [{ $ref: '#/components/schemas/Problem' }], required: ['code'] },
      // apple.com/sirikit-cloud-media: a discriminated parent's child declaring the property itself (D481 a schema's own discriminator property declared once)
      Result: {
        type: 'object',
        required: ['class'],
        properties: { class: { type: 'string' } },
        discriminator: { propertyName: 'class', mapping: { OtherResult: '#/components/schemas/OtherResult' } },
      },
      OtherResult: { allOf: [{ $ref: '#/components/schemas/Result' }], type: 'object', properties: { note: { type: 'string' } } },
      OwnResult: {
        allOf: [{ $ref: '#/components/schemas/Result' }],
        type: 'object',
        properties: { class: { type: 'string', enum: ['OwnResult'] } },
      },
    },
    parameters: { companyId: { name: 'companyId', in: 'path', required: true, schema: { type: 'string', maxLength: 36 } } },
  },
  source: { url: {} },
  'x-webhooks': {
    'x-sdk-exclude': true,
    'message.sent': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Notification' } } } },
        responses: { '200': { description: 'received' } },
      },
    },
  },
};

let dir: string;
let outcome: CompileOutcome;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-corpus-regressions-'));
  await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(spec));
  outcome = await generateAndCompile({
    openapi: path.join(dir, 'openapi.json'),
    targets: ['contract', 'server', 'client', 'webhooks'],
    label: 'corpus-regressions',
    lint: 'strict',
  });
}, 300_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('documents the corpus run found failing, reduced', () => {
  it("VTEX's required Content-Type and Accept header parameters are not validated (OpenAPI: SHALL be ignored); others are", () => {
    const validators = outcome.result.files.find((f) => f.path.endsWith('server/request-validators.gen.ts'))!.contents;
    expect(validators).toContain('x-account');
    expect(validators).not.toMatch(/["']content-type["']/);
    expect(validators).not.toMatch(/["']accept["']/);
  });

  it('generates under strict lint: the two extensions and the unknown root field only warn', () => {
    const struct = outcome.result.lintProblems.filter((p) => p.ruleId === 'struct');
    expect(struct.map((p) => [p.severity, p.message]).sort()).toEqual([
      ['warn', 'Expected type `Logo` (object) but got `string`'],
      ['warn', 'Expected type `PathItem` (object) but got `boolean`'],
      ['warn', 'Expected type `integer` but got `string`.'],
      ['warn', 'Expected type `string` but got `integer`.'],
      ['warn', 'Property `source` is not expected here.'],
    ]);
  });

  it("api.video's `pattern: 0`, a string `maxLength` and defaults their schema refuses are left out with a warning naming each; the rest validates", () => {
    const pointers = outcome.result.warnings.filter((w) => w.problem.includes('D430')).map((w) => w.pointer.replace(/^.*#/, '#'));
    expect(pointers.sort()).toEqual([
      '#/components/schemas/Thumbnail/properties/label/maxLength',
      '#/components/schemas/Thumbnail/properties/timecode/pattern',
      '#/paths/~1notes/get/parameters/3/schema/default',
      '#/paths/~1notes/get/parameters/4/schema/default',
    ]);
    const document = outcome.result.files.find((f) => f.path.endsWith('contract/api-document.gen.ts'))!.contents;
    expect(document).not.toMatch(/"pattern":\s*0|pattern: 0/);
    const validators = outcome.result.files.find((f) => f.path.endsWith('server/request-validators.gen.ts'))!.contents;
    expect(validators).toMatch(/minLength/);
    expect(validators).not.toContain('created_date');
  });

  it("a paged operation's helper and an operation named like it get two names (dev.to's getArticles/getArticlesAll)", () => {
    const client = outcome.result.files.find((f) => f.path.endsWith('client/client.gen.ts'))!.contents;
    expect(client.match(/\bgetArticlesAll\b\s*[:(]/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it("Codat's `$ref`s to a parameter's schema and into a schema's `allOf` are read in webhook payloads, request bodies and types (D452, D412)", () => {
    const file = (end: string) => outcome.result.files.find((f) => f.path.endsWith(end))!.contents;
    for (const end of ['webhooks/validators.gen.ts', 'server/request-validators.gen.ts', 'contract/types.gen.ts'])
      expect(file(end)).not.toContain('parameters/companyId/schema');
    expect(file('contract/types.gen.ts')).not.toContain('["allOf"]');
    expect(file('server/request-validators.gen.ts')).not.toContain('notValidated');
    expect(file('webhooks/validators.gen.ts')).toMatch(/maxLength|36/);
  });

  it('a recursive definition is a component of its own, refs below an optional property are copies (D472, D473)', () => {
    const types = outcome.result.files.find((f) => f.path.endsWith('contract/types.gen.ts'))!.contents;
    expect(types).toContain('components["schemas"]["Report.properties.data.items"]');
    expect(types).not.toContain('["items"]');
    expect(types).not.toContain('["relationships"]');
  });

  it("a callback named `event` gets a validator that is not the index's validateEvent, and everything compiles strictly", () => {
    const validators = outcome.result.files.find((f) => f.path.endsWith('webhooks/validators.gen.ts'))!.contents;
    expect(validators).toMatch(/export const validateEventPayload\b/);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });
});
