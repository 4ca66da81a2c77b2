import { describe, expect, it } from 'vitest';
import { buildModel, collectEnums, collectErrorCatalogue, collectErrorCodes, RefResolver } from '../../generators/src/model/build.js';
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

  it('RefResolver follows ref chains and merges allOf object shapes', () => {
    const doc = {
      components: {
        schemas: {
          A: { $ref: '#/components/schemas/B' },
          B: {
            allOf: [{ type: 'object', required: ['x'], properties: { x: { type: 'string' } } }, { properties: { y: { type: 'integer' } } }],
          },
          'a/b': { type: 'string' },
        },
      },
    };
    const r = new RefResolver(doc);
    expect(r.deref({ $ref: '#/components/schemas/A' })).toBe(doc.components.schemas.B);
    expect(r.get('#/components/schemas/a~1b')).toEqual({ type: 'string' });
    const shape = r.objectShape({ $ref: '#/components/schemas/A' });
    expect(Object.keys(shape.properties)).toEqual(['x', 'y']);
    expect([...shape.required]).toEqual(['x']);
    expect(() => r.get('#/components/schemas/Nope')).toThrow(/Unresolvable/);
    expect(collectErrorCodes({ 'x-error-codes': ['B', 'A'] })).toEqual(['A', 'B']);
  });
});

describe('model: parameters carry their serialisation', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'P', version: '1' },
    paths: {
      '/p/{id}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
        ],
        get: {
          parameters: [
            {
              name: 'tags',
              in: 'query',
              style: 'pipeDelimited',
              explode: false,
              allowReserved: true,
              schema: { type: 'array', items: { type: 'string' } },
            },
            { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
            { name: 'meta', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
            { name: 'empty', in: 'query', allowEmptyValue: true, schema: { type: 'string' } },
            { name: 'x-trace', in: 'header', required: true, schema: { type: 'integer' } },
            { name: 'ids', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'sid', in: 'cookie', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const op = buildModel(doc, { source: 't' }).operations[0]!;
  const byName = (name: string) => op.parameterList.find((p) => p.name === name)!;

  it('lists the operation parameters in declaration order, then the inherited ones it does not override', () => {
    expect(op.parameterList.map((p) => `${p.level}:${p.in}:${p.name}`)).toEqual([
      'operation:query:tags',
      'operation:query:filter',
      'operation:query:meta',
      'operation:query:empty',
      'operation:header:x-trace',
      'operation:header:ids',
      'operation:cookie:sid',
      'path:path:id',
      'path:query:q',
    ]);
    expect(op.parameters.header.map((p) => p.name)).toEqual(['ids', 'x-trace']);
  });

  it.each([
    [
      'tags',
      {
        style: 'pipeDelimited',
        styleDeclared: true,
        explode: false,
        explodeDeclared: true,
        allowReserved: true,
        allowEmptyValue: false,
        content: undefined,
      },
    ],
    ['filter', { style: 'deepObject', styleDeclared: true, explode: false, explodeDeclared: false, allowReserved: false }],
    [
      'meta',
      {
        style: 'form',
        styleDeclared: false,
        explode: true,
        content: { mediaType: 'application/json', schema: { type: 'object' } },
        schema: { type: 'object' },
      },
    ],
    ['empty', { allowEmptyValue: true, style: 'form', explode: true }],
    ['ids', { style: 'simple', styleDeclared: false, explode: false }],
    ['sid', { style: 'form', explode: true }],
    ['id', { style: 'simple', explode: false, required: true, level: 'path' }],
  ] as const)('%s: style, explode, allowReserved, allowEmptyValue and content', (name, expected) => {
    expect(byName(name)).toMatchObject(expected);
  });
});

describe('model: enums, error catalogue, events', () => {
  it('names component enums and property enums (shared, qualified when ambiguous)', () => {
    const enums = collectEnums([
      { name: 'MopType', schema: { type: 'string', enum: ['UPI', 'QR'] } },
      {
        name: 'Order',
        schema: {
          type: 'object',
          properties: { status: { enum: ['open', 'closed'] }, mop_type: { enum: ['UPI'] }, mode: { enum: ['a', 'b'] } },
        },
      },
      {
        name: 'OrderPatch',
        schema: { type: 'object', properties: { mode: { enum: ['a', 'b'] }, tags: { type: 'array', items: { enum: ['x'] } } } },
      },
      { name: 'Refund', schema: { type: 'object', properties: { status: { enum: ['done'] } } } },
      { name: 'Plain', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
    ]);
    expect(enums.map((e) => [e.name, e.values, e.pointers.length])).toEqual([
      ['Mode', ['a', 'b'], 2],
      ['MopType', ['UPI', 'QR'], 1],
      ['OrderMopType', ['UPI'], 1],
      ['OrderStatus', ['open', 'closed'], 1],
      ['RefundStatus', ['done'], 1],
      ['Tags', ['x'], 1],
    ]);
    expect(enums.find((e) => e.name === 'Tags')!.pointers).toEqual(['#/components/schemas/OrderPatch/properties/tags/items']);
  });

  it('reads the error catalogue', () => {
    expect(
      collectErrorCatalogue({
        components: {
          schemas: { ErrorCode: { enum: ['B', 'A'], 'x-error-catalogue': { B: { status: 404, when: 'gone' }, A: { status: 400 } } } },
        },
      }),
    ).toEqual([
      { code: 'A', status: 400, when: undefined },
      { code: 'B', status: 404, when: 'gone' },
    ]);
  });

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
