import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/model/build.js';
import { loadOpenApi } from '../../generators/src/parse/openapi.js';
import { ROOT } from './fixtures.js';

async function model(fixture: string) {
  const { document } = await loadOpenApi({ input: `test/fixtures/${fixture}/openapi.yaml`, lint: 'skip', cwd: ROOT });
  return buildModel(document, { source: fixture });
}

describe('model builder', () => {
  it('builds operations sorted by path then method, with grouped parameters and effective security', async () => {
    const m = await model('mini');
    expect(m.operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      'get /health',
      'get /partners/merchants/',
      'post /pg/orders/',
      'get /pg/orders/{order_id}',
      'post /pg/orders/{order_id}/documents/',
      'get /pg/refunds',
    ]);
    const create = m.operations.find((o) => o.operationId === 'createOrder')!;
    expect(create.parameters.header.map((p) => [p.name, p.required])).toEqual([['X-Merchant-ID', true]]);
    expect(create.security).toEqual([
      [
        { scheme: 'ClientId', scopes: [] },
        { scheme: 'ClientSecret', scopes: [] },
      ],
    ]);
    expect(create.requestBody).toMatchObject({ required: true, content: [{ mediaType: 'application/json' }] });
    expect(create.responses.map((r) => [r.status, r.kind, r.content.map((c) => c.mediaType), r.headers.map((h) => h.name)])).toEqual([
      ['201', 'exact', ['application/json'], ['Location']],
      ['400', 'exact', ['application/json'], []],
      ['401', 'exact', ['application/json'], []],
    ]);
    const health = m.operations[0]!;
    expect(health).toMatchObject({ operationId: 'getHealth', synthesizedId: true, security: [], tags: [] });
  });

  it('types multipart fields (file vs string) and detects pagination shapes', async () => {
    const m = await model('mini');
    const upload = m.operations.find((o) => o.operationId === 'uploadOrderDocument')!;
    expect(upload.requestBody!.content[0]!.fields).toEqual([
      { name: 'document_type', required: true, kind: 'string' },
      { name: 'file', required: true, kind: 'file' },
      { name: 'identifier', required: false, kind: 'string' },
    ]);
    expect(upload.responses.find((r) => r.status === '4XX')!.statusCodes).toHaveLength(100);
    expect(m.operations.find((o) => o.operationId === 'listRefunds')!.pagination).toEqual({
      strategy: 'nextLink',
      status: '200',
      declared: false,
      itemsPath: ['results'],
      next: { in: 'body', path: ['next'] },
      tokenParam: undefined,
    });
    expect(m.operations.find((o) => o.operationId === 'listMerchants')!.pagination).toEqual({
      strategy: 'nextLink',
      status: '200',
      declared: false,
      itemsPath: ['data', 'results'],
      next: { in: 'body', path: ['data', 'next'] },
      tokenParam: undefined,
    });
    expect(m.operations.find((o) => o.operationId === 'getOrder')!.pagination).toBeUndefined();
  });

  it('collects webhooks, error codes, schemas and security schemes', async () => {
    const m = await model('mini');
    expect(m.webhooks.map((w) => [w.eventType, w.typeName, w.source, w.typeRef])).toEqual([
      ['PAYMENT_FAILED', 'PaymentFailedEvent', 'openapi', 'components["schemas"]["PaymentFailedEvent"]'],
    ]);
    expect(m.errorCodes).toEqual(['ERR_AUTH_000', 'ERR_INTERNAL_500', 'ERR_ORDER_404', 'ERR_REQUEST_404', 'ERR_VALIDATION_400']);
    expect(m.schemas.map((s) => s.name)).toContain('CreateOrderRequest');
    expect(m.securitySchemes.map((s) => [s.name, s.in, s.parameterName])).toEqual([
      ['ClientId', 'header', 'X-Client-ID'],
      ['ClientSecret', 'header', 'X-Client-Secret'],
    ]);
  });

  it('handles edge cases: path-level params, undeclared path params, ranges beside exact codes, default, callbacks, id collisions', async () => {
    const m = await model('edge');
    const get = m.operations.find((o) => o.method === 'get' && o.path.startsWith('/things/'))!;
    expect(get.operationId).toBe('getThingsByThingIdPartsByPartId');
    expect(get.parameters.path.map((p) => [p.name, p.declared])).toEqual([
      ['thing-id', true],
      ['part_id', true],
    ]);
    expect(get.expressPath).toBe('/things/:"thing-id"/parts/:part_id');
    expect(get.responses.map((r) => r.kind)).toEqual(['exact', 'default']);
    const del = m.operations.find((o) => o.method === 'delete')!;
    expect(del).toMatchObject({ operationId: 'things/delete-part', deprecated: true });
    expect(del.parameters.path.map((p) => [p.name, p.declared])).toEqual([
      ['thing-id', true],
      ['part_id', false],
    ]);
    const create = m.operations.find((o) => o.operationId === 'things/create')!;
    expect(create.requestBody!.content.map((c) => [c.mediaType, c.fields?.map((f) => `${f.name}:${f.kind}`)])).toEqual([
      ['application/x-www-form-urlencoded', ['name:string']],
      ['multipart/form-data', ['labels:strings', 'photos:files']],
    ]);
    expect(create.responses.find((r) => r.status === '5XX')!.statusCodes[0]).toBe(500);
    expect(create.callbacks).toMatchObject([{ name: 'onDone', expression: '{$request.body#/callback}', operations: [{ method: 'post' }] }]);
    expect(m.operations.filter((o) => o.path === '/a-b' || o.path === '/a_b').map((o) => o.operationId)).toEqual(['getAB', 'getAB2']);
    expect(m.errorCodes).toEqual(['E_ONE', 'E_TWO']);
  });

  it('merges AsyncAPI-only events that carry the discriminator and ignores messages without it', async () => {
    const { document } = await loadOpenApi({ input: 'test/fixtures/mini/openapi.yaml', lint: 'skip', cwd: ROOT });
    const m = buildModel(document, {
      source: 'x',
      asyncMessages: [
        {
          name: 'MERCHANT_APPROVED',
          summary: 's',
          description: undefined,
          payload: { type: 'object', properties: { event_type: { const: 'MERCHANT_APPROVED' } } },
        },
        {
          name: 'PAYMENT_FAILED',
          summary: 'dup',
          description: undefined,
          payload: { type: 'object', properties: { event_type: { const: 'PAYMENT_FAILED' } } },
        },
        {
          name: 'RETURN_URL_CALLBACK',
          summary: 'form',
          description: undefined,
          payload: { type: 'object', properties: { hash: { type: 'string' } } },
        },
      ],
    });
    expect(m.webhooks.map((w) => [w.eventType, w.source])).toEqual([
      ['MERCHANT_APPROVED', 'asyncapi'],
      ['PAYMENT_FAILED', 'openapi'],
    ]);
  });
});

describe('model: events', () => {
  it('gives webhook events their category, formats, examples, signature headers and AsyncAPI message', async () => {
    const { document } = await loadOpenApi({ input: 'test/fixtures/mini/openapi.yaml', lint: 'skip', cwd: ROOT });
    const m = buildModel(document, {
      source: 'x',
      asyncMessages: [
        {
          name: 'PAYMENT_FAILED',
          summary: 's',
          description: undefined,
          tags: ['Payment'],
          payload: { type: 'object', properties: { event_type: { const: 'PAYMENT_FAILED' } } },
        },
        {
          name: 'MERCHANT_APPROVED',
          summary: 'a',
          description: undefined,
          tags: ['Onboarding'],
          payload: {
            type: 'object',
            examples: [{ event_type: 'MERCHANT_APPROVED' }],
            properties: { event_type: { const: 'MERCHANT_APPROVED' }, event_time: { type: 'string', 'x-format': 'YYYY' } },
          },
        },
      ],
      plannedEvents: [{ eventType: 'REFUND_FAILED', category: 'Refund', summary: 'later' }],
    });
    expect(m.webhooks.map((w) => [w.eventType, w.source, w.asyncapiMessage, w.category, w.formats, w.examples.length])).toEqual([
      ['MERCHANT_APPROVED', 'asyncapi', 'MERCHANT_APPROVED', 'Onboarding', [{ field: 'event_time', format: 'YYYY' }], 1],
      ['PAYMENT_FAILED', 'openapi', 'PAYMENT_FAILED', 'Payment', [], 0],
    ]);
    expect(m.plannedEvents).toEqual([{ eventType: 'REFUND_FAILED', category: 'Refund', summary: 'later' }]);
  });
});

describe('model builder: constructs of real-world specs (test/fixtures/shapes)', () => {
  it('an operation-level parameter overrides the path-level one of the same location and name (headers case-insensitively)', async () => {
    const m = await model('shapes');
    const get = m.operations.find((o) => o.operationId === 'getShapesByShapeId')!;
    expect(get.parameterList.map((p) => [p.in, p.name, p.level, (p.schema as { type?: string } | undefined)?.type])).toEqual([
      ['query', 'limit', 'operation', 'integer'],
      ['header', 'x-request-id', 'operation', 'string'],
      ['path', 'shape-id', 'path', 'string'],
    ]);
    const del = m.operations.find((o) => o.operationId === 'deleteShapesByShapeId')!;
    expect(del.parameterList.map((p) => [p.in, p.name, p.level])).toEqual([
      ['path', 'shape-id', 'path'],
      ['query', 'limit', 'path'],
      ['header', 'X-Request-Id', 'path'],
    ]);
  });

  it.each([
    ['import', 'put', ['*/*', 'application/octet-stream', 'text/plain']],
    ['2fa-upload', 'post', ['application/x-www-form-urlencoded', 'multipart/form-data']],
  ])('keeps every request media type of %s (non-JSON included)', async (operationId, method, mediaTypes) => {
    const op = (await model('shapes')).operations.find((o) => o.operationId === operationId)!;
    expect(op.method).toBe(method);
    expect(op.requestBody?.content.map((c) => c.mediaType)).toEqual(mediaTypes);
  });
});
