import { describe, expect, it } from 'vitest';
import { compareContracts } from './compare.js';
import { baseEvents, baseOpenApi, snapshot } from './test-fixtures.js';
import { CLASSIFICATIONS, type Classification } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: fixture documents are built and changed at any depth without casts
type Obj = Record<string, any>;

interface Row {
  change: string;
  mutate: (spec: Obj, events: Obj) => void;
  /** The classification the change must get ... */
  expected: Classification;
  /** ... reported with this kind at this pointer. */
  kind: string;
  pointer: string;
}

const schemas = (spec: Obj) => spec.components.schemas;
const createOrder = (spec: Obj) => spec.paths['/orders'].post;

const rows: Row[] = [
  // a removed path is the removal of each of its operations
  {
    change: 'removed path',
    mutate: (s) => delete s.paths['/orders/{order_id}'],
    expected: 'breaking',
    kind: 'operation-removed',
    pointer: '/paths/~1orders~1{order_id}/get',
  },
  {
    change: 'removed operation',
    mutate: (s) => delete s.paths['/orders'].get,
    expected: 'breaking',
    kind: 'operation-removed',
    pointer: '/paths/~1orders/get',
  },
  {
    change: 'new operation',
    mutate: (s) => (s.paths['/orders/{order_id}'].delete = { responses: { '204': { description: 'Gone' } } }),
    expected: 'non-breaking',
    kind: 'operation-added',
    pointer: '/paths/~1orders~1{order_id}/delete',
  },
  {
    change: 'new required request field',
    mutate: (s) => {
      schemas(s).OrderRequest.properties.customer = { type: 'string' };
      schemas(s).OrderRequest.required.push('customer');
    },
    expected: 'breaking',
    kind: 'required-property-added',
    pointer: '/components/schemas/OrderRequest/required/2',
  },
  {
    change: 'new optional request field',
    mutate: (s) => (schemas(s).OrderRequest.properties.customer = { type: 'string' }),
    expected: 'non-breaking',
    kind: 'property-added',
    pointer: '/components/schemas/OrderRequest/properties/customer',
  },
  {
    change: 'removed response field',
    mutate: (s) => delete schemas(s).Order.properties.note,
    expected: 'breaking',
    kind: 'property-removed',
    pointer: '/components/schemas/Order/properties/note',
  },
  {
    change: 'new response field',
    mutate: (s) => (schemas(s).Order.properties.paid_at = { type: 'string' }),
    expected: 'non-breaking',
    kind: 'property-added',
    pointer: '/components/schemas/Order/properties/paid_at',
  },
  {
    change: 'response field made optional',
    mutate: (s) => (schemas(s).Order.required = ['order_id', 'status']),
    expected: 'breaking',
    kind: 'required-property-removed',
    pointer: '/components/schemas/Order/required/2',
  },
  {
    change: 'response field made nullable',
    mutate: (s) => (schemas(s).Order.properties.amount.type = ['number', 'null']),
    expected: 'breaking',
    kind: 'type-changed',
    pointer: '/components/schemas/Order/properties/amount/type',
  },
  {
    change: 'request field made nullable',
    mutate: (s) => (schemas(s).OrderRequest.properties.note.type = ['string', 'null']),
    expected: 'non-breaking',
    kind: 'type-changed',
    pointer: '/components/schemas/OrderRequest/properties/note/type',
  },
  {
    change: 'type change in a request field',
    mutate: (s) => (schemas(s).OrderRequest.properties.amount.type = 'number'),
    expected: 'breaking',
    kind: 'type-changed',
    pointer: '/components/schemas/OrderRequest/properties/amount/type',
  },
  {
    change: 'narrowed enum (request)',
    mutate: (s) => schemas(s).OrderRequest.properties.currency.enum.pop(),
    expected: 'breaking',
    kind: 'enum-value-removed',
    pointer: '/components/schemas/OrderRequest/properties/currency/enum/1',
  },
  {
    change: 'widened enum (request)',
    mutate: (s) => schemas(s).OrderRequest.properties.currency.enum.push('EUR'),
    expected: 'non-breaking',
    kind: 'enum-value-added',
    pointer: '/components/schemas/OrderRequest/properties/currency/enum/2',
  },
  // D54 called this breaking; it breaks only clients that check values against the old list: a warning (D105 five change classifications and --fail-on)
  {
    change: 'widened enum in a response',
    mutate: (s) => schemas(s).Order.properties.status.enum.push('refunded'),
    expected: 'warning',
    kind: 'enum-value-added',
    pointer: '/components/schemas/Order/properties/status/enum/2',
  },
  {
    change: 'tightened pattern',
    mutate: (s) => (schemas(s).OrderRequest.properties.amount.pattern = '^\\d{1,6}\\.\\d{2}$'),
    expected: 'breaking',
    kind: 'pattern-changed',
    pointer: '/components/schemas/OrderRequest/properties/amount/pattern',
  },
  {
    change: 'changed pattern in a response (looser or not: undecidable)',
    mutate: (s) => (schemas(s).Order.properties.order_id.pattern = '^ord_'),
    expected: 'non-breaking',
    kind: 'pattern-added',
    pointer: '/components/schemas/Order/properties/order_id/pattern',
  },
  {
    change: 'changed pattern in a callback payload',
    mutate: (s) => (schemas(s).ReturnCallback.properties.hash.pattern = '^[0-9a-fA-F]{64}$'),
    expected: 'breaking',
    kind: 'pattern-changed',
    pointer: '/components/schemas/ReturnCallback/properties/hash/pattern',
  },
  {
    change: 'tightened maxLength',
    mutate: (s) => (schemas(s).OrderRequest.properties.note.maxLength = 50),
    expected: 'breaking',
    kind: 'maxLength-changed',
    pointer: '/components/schemas/OrderRequest/properties/note/maxLength',
  },
  {
    change: 'loosened maxLength',
    mutate: (s) => (schemas(s).OrderRequest.properties.note.maxLength = 200),
    expected: 'non-breaking',
    kind: 'maxLength-changed',
    pointer: '/components/schemas/OrderRequest/properties/note/maxLength',
  },
  {
    change: 'new required parameter',
    mutate: (s) => createOrder(s).parameters.push({ name: 'X-Merchant-ID', in: 'header', required: true, schema: { type: 'string' } }),
    expected: 'breaking',
    kind: 'parameter-added',
    pointer: '/paths/~1orders/post/parameters/1',
  },
  {
    change: 'new optional parameter',
    mutate: (s) => s.paths['/orders'].get.parameters.push({ name: 'cursor', in: 'query', required: false, schema: { type: 'string' } }),
    expected: 'non-breaking',
    kind: 'parameter-added',
    pointer: '/paths/~1orders/get/parameters/1',
  },
  {
    change: 'parameter made required',
    mutate: (s) => (s.paths['/orders'].get.parameters[0].required = true),
    expected: 'breaking',
    kind: 'required-added',
    pointer: '/paths/~1orders/get/parameters/0/required',
  },
  {
    change: 'removed parameter',
    mutate: (s) => (s.paths['/orders'].get.parameters = []),
    expected: 'breaking',
    kind: 'parameter-removed',
    pointer: '/paths/~1orders/get/parameters/0',
  },
  {
    change: 'removed success status',
    mutate: (s) => delete createOrder(s).responses['201'],
    expected: 'breaking',
    kind: 'response-removed',
    pointer: '/paths/~1orders/post/responses/201',
  },
  {
    change: 'added error status',
    mutate: (s) =>
      (createOrder(s).responses['409'] = {
        description: 'Conflict',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }),
    expected: 'non-breaking',
    kind: 'response-added',
    pointer: '/paths/~1orders/post/responses/409',
  },
  {
    change: 'security: a new scheme required',
    mutate: (s) => (s.security = [{ clientId: [], clientSecret: [] }]),
    expected: 'breaking',
    kind: 'security-requirement-added',
    pointer: '/security/0/clientSecret',
  },
  {
    change: 'security: a new alternative',
    mutate: (s) => s.security.push({ clientSecret: [] }),
    expected: 'non-breaking',
    kind: 'security-requirement-added',
    pointer: '/security/1',
  },
  {
    change: 'request media type removed',
    mutate: (s) => {
      const body = createOrder(s).requestBody.content;
      body['application/x-www-form-urlencoded'] = body['application/json'];
      delete body['application/json'];
    },
    expected: 'breaking',
    kind: 'media-type-removed',
    pointer: '/paths/~1orders/post/requestBody/content/application~1json',
  },
  {
    change: 'request closed to unknown fields',
    mutate: (s) => (schemas(s).OrderRequest.additionalProperties = false),
    expected: 'breaking',
    kind: 'additionalProperties-added',
    pointer: '/components/schemas/OrderRequest/additionalProperties',
  },
  {
    change: 'extension changed in a response schema',
    mutate: (s) => (schemas(s).Order['x-internal-name'] = 'order'),
    expected: 'annotation',
    kind: 'x-internal-name-added',
    pointer: '/components/schemas/Order/x-internal-name',
  },
  {
    change: 'info.version bumped',
    mutate: (s) => (s.info.version = '1.1.0'),
    expected: 'annotation',
    kind: 'version-changed',
    pointer: '/info/version',
  },
  {
    change: 'response field named like an extension removed',
    mutate: (s) => delete schemas(s).Order.properties['x-trace'],
    expected: 'breaking',
    kind: 'property-removed',
    pointer: '/components/schemas/Order/properties/x-trace',
  },
  {
    change: 'description change',
    mutate: (s) => (createOrder(s).description = 'Creates an order and a checkout session.'),
    expected: 'annotation',
    kind: 'description-changed',
    pointer: '/paths/~1orders/post/description',
  },
  {
    change: 'example change',
    mutate: (s) => (schemas(s).Order.properties.order_id.examples = ['ord_2']),
    expected: 'annotation',
    kind: 'examples-item-changed',
    pointer: '/components/schemas/Order/properties/order_id/examples/0',
  },
  {
    change: 'deprecated flag',
    mutate: (s) => (s.paths['/orders'].get.deprecated = true),
    expected: 'annotation',
    kind: 'deprecated-added',
    pointer: '/paths/~1orders/get/deprecated',
  },
  {
    change: 'webhook removed',
    mutate: (s) => delete s.webhooks.ORDER_PAID,
    expected: 'breaking',
    kind: 'webhook-removed',
    pointer: '/webhooks/ORDER_PAID',
  },
  {
    change: 'webhook payload field removed',
    mutate: (s) => delete schemas(s).OrderPaid.properties.amount,
    expected: 'breaking',
    kind: 'property-removed',
    pointer: '/components/schemas/OrderPaid/properties/amount',
  },
  {
    change: 'webhook payload: new required field (the receiver reads more, sends nothing)',
    mutate: (s) => {
      schemas(s).OrderPaid.properties.paid_at = { type: 'string' };
      schemas(s).OrderPaid.required.push('paid_at');
    },
    expected: 'non-breaking',
    kind: 'required-property-added',
    pointer: '/components/schemas/OrderPaid/required/2',
  },
  {
    change: 'callback payload field removed',
    mutate: (s) => delete schemas(s).ReturnCallback.properties.status,
    expected: 'breaking',
    kind: 'property-removed',
    pointer: '/components/schemas/ReturnCallback/properties/status',
  },
  {
    change: 'callback payload: new required field',
    mutate: (s) => {
      schemas(s).ReturnCallback.properties.amount = { type: 'string' };
      schemas(s).ReturnCallback.required.push('amount');
    },
    expected: 'non-breaking',
    kind: 'required-property-added',
    pointer: '/components/schemas/ReturnCallback/required/2',
  },
  {
    change: 'callback removed',
    mutate: (s) => delete createOrder(s).callbacks,
    expected: 'breaking',
    kind: 'callback-removed',
    pointer: '/paths/~1orders/post/callbacks/returnUrl/{$request.body#~1return_url}/post',
  },
  {
    change: 'event removed',
    mutate: (_, e) => delete e.PaymentSettled,
    expected: 'breaking',
    kind: 'event-removed',
    pointer: '/channels/webhookEndpoint/messages/PaymentSettled',
  },
  {
    change: 'new event',
    mutate: (_, e) => (e.RefundProcessed = { type: 'object', properties: { refund_id: { type: 'string' } } }),
    expected: 'non-breaking',
    kind: 'event-added',
    pointer: '/channels/webhookEndpoint/messages/RefundProcessed',
  },
  {
    change: 'event payload field removed',
    mutate: (_, e) => delete e.PaymentFailed.properties.data.properties.reason,
    expected: 'breaking',
    kind: 'property-removed',
    pointer: '/channels/webhookEndpoint/messages/PaymentFailed/payload/properties/data/properties/reason',
  },
  {
    change: 'event payload field type change',
    mutate: (_, e) => (e.PaymentSettled.properties.amount.type = 'string'),
    expected: 'breaking',
    kind: 'type-changed',
    pointer: '/channels/webhookEndpoint/messages/PaymentSettled/payload/properties/amount/type',
  },
  {
    change: 'new event payload field',
    mutate: (_, e) => (e.PaymentSettled.properties.currency = { type: 'string' }),
    expected: 'non-breaking',
    kind: 'property-added',
    pointer: '/channels/webhookEndpoint/messages/PaymentSettled/payload/properties/currency',
  },
];

describe('compareContracts: one change at a time', () => {
  it.each(rows)('$change is $expected', ({ mutate, expected, kind, pointer }) => {
    const spec = baseOpenApi();
    const events = baseEvents();
    mutate(spec, events);
    const changes = compareContracts(snapshot('before'), snapshot('after', spec, events));
    const match = changes.find((c) => c.pointer === pointer && c.kind === kind);
    expect(match, `changes found: ${JSON.stringify(changes.map((c) => [c.classification, c.kind, c.pointer]))}`).toBeDefined();
    expect(match?.classification).toBe(expected);
    // The strongest classification of the whole diff is the row's: nothing else in it is worse.
    const worst = CLASSIFICATIONS.find((c) => changes.some((x) => x.classification === c));
    expect(worst).toBe(expected);
    // the message names the definition; the operations, webhooks and events that reach it are its uses
    expect(match?.message).toMatch(/^(POST|GET|DELETE) |^schema |^webhook |^callback |^event |^security|^info/);
    if (match?.pointer.startsWith('/components/schemas/')) expect(match.useCount).toBeGreaterThan(0);
  });

  it.each([
    {
      change: 'a removed response field',
      mutate: (s: Obj) => delete schemas(s).Order.properties.note,
      message: 'schema Order: property removed at `note` (clients reading this field get nothing)',
    },
    {
      change: 'a tightened request limit',
      mutate: (s: Obj) => (schemas(s).OrderRequest.properties.note.maxLength = 50),
      message: 'schema OrderRequest: maxLength changed at `note`: `100` -> `50` (requests that were valid may now be refused)',
    },
    {
      change: 'a parameter made required',
      mutate: (s: Obj) => (s.paths['/orders'].get.parameters[0].required = true),
      message: 'GET /orders: required added in the parameter limit: `true` (requests without it are refused)',
    },
  ])('says where and what for $change', ({ mutate, message }) => {
    const spec = baseOpenApi();
    mutate(spec);
    expect(compareContracts(snapshot('before'), snapshot('after', spec)).map((c) => c.message)).toContain(message);
  });

  it.each([
    {
      change: 'OpenAPI 3.0: response field made nullable',
      mutate: (s: Obj) => (schemas(s).Order.properties.amount.nullable = true),
      expected: 'breaking',
      kind: 'nullable-added',
      pointer: '/components/schemas/Order/properties/amount/nullable',
    },
    {
      change: 'OpenAPI 3.0: request field made nullable',
      mutate: (s: Obj) => (schemas(s).OrderRequest.properties.note.nullable = true),
      expected: 'non-breaking',
      kind: 'nullable-added',
      pointer: '/components/schemas/OrderRequest/properties/note/nullable',
    },
    {
      change: 'OpenAPI 3.0: removed response field',
      mutate: (s: Obj) => delete schemas(s).Order.properties.note,
      expected: 'breaking',
      kind: 'property-removed',
      pointer: '/components/schemas/Order/properties/note',
    },
  ])('$change is $expected', ({ mutate, expected, kind, pointer }) => {
    const as30 = () => {
      const spec = baseOpenApi();
      spec.openapi = '3.0.3';
      delete spec.webhooks;
      return spec;
    };
    const spec = as30();
    mutate(spec);
    const changes = compareContracts(snapshot('before', as30()), snapshot('after', spec));
    expect(
      changes.find((c) => c.kind === kind && c.pointer === pointer)?.classification,
      JSON.stringify(changes.map((c) => [c.classification, c.kind, c.pointer])),
    ).toBe(expected);
  });

  it('finds nothing between identical contracts', () => {
    expect(compareContracts(snapshot('a'), snapshot('b'))).toEqual([]);
  });

  it('reports a schema change once, at its definition, with every place a client meets it beneath it (D104)', () => {
    const spec = baseOpenApi();
    delete spec.components.schemas.Order.properties.note;
    const changes = compareContracts(snapshot('before'), snapshot('after', spec));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.pointer).toBe('/components/schemas/Order/properties/note');
    expect(changes[0]!.useCount).toBe(3);
    expect(changes[0]!.uses.map((u) => `${u.where} ${u.in}`)).toEqual([
      'GET /orders response 200 (application/json)',
      'POST /orders response 201 (application/json)',
      'GET /orders/{order_id} response 200 (application/json)',
    ]);
  });

  it('compares a recursive schema once and ends: one entry for a change inside it', () => {
    const tree = (extra: Obj = {}) => {
      const spec = baseOpenApi();
      spec.components.schemas.Node = {
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } }, ...extra },
      };
      spec.components.schemas.Order.properties.tree = { $ref: '#/components/schemas/Node' };
      return spec;
    };
    const changes = compareContracts(snapshot('before', tree({ legacy: { type: 'string' } })), snapshot('after', tree()));
    expect(changes.map((c) => [c.classification, c.kind, c.pointer, c.useCount])).toEqual([
      ['breaking', 'property-removed', '/components/schemas/Node/properties/legacy', 3],
    ]);
  });

  it('follows a dereferenced, cyclic event payload (shared objects are one definition) and ends', () => {
    const payload = (withLegacy: boolean) => {
      const node: Obj = { type: 'object', properties: { id: { type: 'string' } } };
      node.properties.parent = node;
      if (withLegacy) node.properties.legacy = { type: 'string' };
      return { PaymentFailed: node };
    };
    const changes = compareContracts(snapshot('before', baseOpenApi(), payload(true)), snapshot('after', baseOpenApi(), payload(false)));
    expect(changes.map((c) => [c.document, c.kind, c.pointer])).toEqual([
      ['asyncapi', 'property-removed', '/channels/webhookEndpoint/messages/PaymentFailed/payload/properties/legacy'],
    ]);
  });

  it('keeps output bounded by changes, not by uses: a schema used by 300 operations is one entry', () => {
    const wide = (note: boolean) => {
      const spec = baseOpenApi();
      if (!note) delete spec.components.schemas.Order.properties.note;
      for (let i = 0; i < 300; i++)
        spec.paths[`/orders/v${i}`] = {
          get: {
            responses: { '200': { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
          },
        };
      return spec;
    };
    const changes = compareContracts(snapshot('before', wide(true)), snapshot('after', wide(false)));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.useCount).toBe(303);
    expect(changes[0]!.uses).toHaveLength(10);
  });
});
