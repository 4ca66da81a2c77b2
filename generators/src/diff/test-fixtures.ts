/**
 * A small contract, built in code, that the diff tests change one thing at a time: two operations (a request body,
 * parameters, responses and a callback through `$ref`s), a webhook and two AsyncAPI events.
 */
import type { ContractSnapshot } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: fixture documents are built and changed at any depth without casts
type Obj = Record<string, any>;

export function baseOpenApi(): Obj {
  return {
    openapi: '3.1.0',
    info: { title: 'Fixture', version: '1.0.0' },
    security: [{ clientId: [] }],
    paths: {
      '/orders': {
        post: {
          operationId: 'createOrder',
          description: 'Creates an order.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 64 } }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/OrderRequest' } } } },
          callbacks: {
            returnUrl: {
              '{$request.body#/return_url}': {
                post: {
                  requestBody: {
                    content: { 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/ReturnCallback' } } },
                  },
                  responses: { '200': { description: 'Shown to the customer' } },
                },
              },
            },
          },
          responses: {
            '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } },
            '400': { description: 'Invalid', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          },
        },
        get: {
          operationId: 'listOrders',
          parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 100 } }],
          responses: {
            '200': {
              description: 'Orders',
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } } } },
            },
          },
        },
      },
      '/orders/{order_id}': {
        get: {
          operationId: 'getOrder',
          parameters: [{ name: 'order_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The order', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } },
          },
        },
      },
    },
    webhooks: {
      ORDER_PAID: {
        post: {
          operationId: 'orderPaidWebhook',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/OrderPaid' } } } },
          responses: { '200': { description: 'Received' } },
        },
      },
    },
    components: {
      securitySchemes: {
        clientId: { type: 'apiKey', in: 'header', name: 'X-Client-ID' },
        clientSecret: { type: 'apiKey', in: 'header', name: 'X-Client-Secret' },
      },
      schemas: {
        OrderRequest: {
          type: 'object',
          required: ['amount', 'currency'],
          properties: {
            amount: { type: 'string', pattern: '^\\d+\\.\\d{2}$', maxLength: 12 },
            currency: { type: 'string', enum: ['INR', 'USD'] },
            note: { type: 'string', maxLength: 100 },
          },
        },
        Order: {
          type: 'object',
          required: ['order_id', 'status', 'amount'],
          properties: {
            order_id: { type: 'string', examples: ['ord_1'] },
            status: { type: 'string', enum: ['created', 'paid'] },
            amount: { type: 'number' },
            note: { type: 'string', description: 'Free text.' },
            'x-trace': { type: 'string', description: 'A field whose name looks like an extension.' },
          },
        },
        OrderPaid: {
          type: 'object',
          required: ['event_type', 'order_id'],
          properties: { event_type: { const: 'ORDER_PAID' }, order_id: { type: 'string' }, amount: { type: 'number' } },
        },
        Error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
        ReturnCallback: {
          type: 'object',
          required: ['order_id', 'hash'],
          properties: { order_id: { type: 'string' }, hash: { type: 'string', pattern: '^[0-9a-f]{64}$' }, status: { type: 'string' } },
        },
      },
    },
  };
}

/** Payloads of the messages on the fixture's one channel, by message key. */
export function baseEvents(): Obj {
  return {
    PaymentFailed: {
      type: 'object',
      required: ['event_type', 'data'],
      properties: {
        event_type: { type: 'string', const: 'PAYMENT_FAILED' },
        data: { type: 'object', required: ['payment_id'], properties: { payment_id: { type: 'string' }, reason: { type: 'string' } } },
      },
    },
    PaymentSettled: {
      type: 'object',
      required: ['event_type'],
      properties: { event_type: { type: 'string', const: 'PAYMENT_SETTLED' }, amount: { type: 'number' } },
    },
  };
}

export function snapshot(label: string, openapi: Obj = baseOpenApi(), events: Obj = baseEvents()): ContractSnapshot {
  const messages = Object.entries(events).map(([message, payload]) => ({ channel: 'webhookEndpoint', message, name: message, payload }));
  return { label, openapi, events: messages, asyncapi: undefined };
}
