/**
 * Type-level tests on the mini fixture's generated code. vitest runs them as no-ops; `npx tsc -p tsconfig.json`
 * checks them (every `@ts-expect-error` must be needed).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { UploadedFile } from '../../packages/server/src/runtime/types.js';
import type { UnexpectedResponseError } from '../../packages/client/src/runtime/result.js';
import { createPaygateClient, type operations, type PaygateErrorCode } from '../fixtures/mini/generated/client/index.js';
import type {
  CreateOrderRequest,
  CreateOrderResponse,
  Handlers,
  UploadOrderDocumentRequest,
  UploadOrderDocumentResponse,
} from '../fixtures/mini/generated/server/handlers.gen.js';
import { validateWebhookEvent, type WebhookEvent, type WebhookEventType } from '../fixtures/mini/generated/webhooks/index.js';

const envelope = {
  success: true as const,
  message: 'ok',
  data: { order_id: 'OD1', amount: 1, currency: 'INR', status: 'payment_pending' as const },
};

describe('generated server types', () => {
  it('types requests: params, lower-cased headers, JSON and multipart bodies', () => {
    expectTypeOf<CreateOrderRequest['headers']['x-merchant-id']>().toEqualTypeOf<string>();
    expectTypeOf<CreateOrderRequest['body']['amount']>().toEqualTypeOf<string>();
    expectTypeOf<UploadOrderDocumentRequest['params']['order_id']>().toEqualTypeOf<string>();
    expectTypeOf<UploadOrderDocumentRequest['body']['file']>().toEqualTypeOf<UploadedFile>();
    expectTypeOf<UploadOrderDocumentRequest['body']['identifier']>().toEqualTypeOf<string | undefined>();
  });

  it('accepts exactly the declared statuses and shapes', () => {
    const ok: CreateOrderResponse = { status: 201, body: envelope, headers: { Location: '/pg/orders/OD1' } };
    const bad: CreateOrderResponse = { status: 400, body: { success: false, error: { code: 'ERR_VALIDATION_400', message: 'x' } } };
    // @ts-expect-error 200 is not a declared status of createOrder
    const undeclared: CreateOrderResponse = { status: 200, body: envelope, headers: { Location: '/x' } };
    // @ts-expect-error the 201 response requires the Location header
    const missingHeader: CreateOrderResponse = { status: 201, body: envelope };
    // @ts-expect-error an error code outside the spec's enum
    const wrongCode: CreateOrderResponse = { status: 400, body: { success: false, error: { code: 'ERR_NOPE', message: 'x' } } };
    // 4XX range: any 4xx status, not 5xx
    const range: UploadOrderDocumentResponse = {
      status: 422,
      body: { success: false, error: { code: 'ERR_VALIDATION_400', message: 'x' } },
    };
    const outside: UploadOrderDocumentResponse = {
      // @ts-expect-error 500 is outside 4XX (on the property, where tsc reports it, so formatting cannot move it away)
      status: 500,
      body: { success: false, error: { code: 'ERR_INTERNAL_500', message: 'x' } },
    };
    expectTypeOf([ok, bad, undeclared, missingHeader, wrongCode, range, outside]).toBeArray();
  });

  it('rejects a handler returning an undeclared status', () => {
    type CreateOrder = Handlers['createOrder'];
    const good: CreateOrder = async () => ({ status: 201, body: envelope, headers: { Location: '/x' } });
    // @ts-expect-error 404 is not declared for createOrder
    const undeclared: CreateOrder = async () => ({ status: 404, body: { success: false, error: { code: 'ERR_ORDER_404', message: 'x' } } });
    expectTypeOf(good).toBeFunction();
    expectTypeOf(undeclared).toBeFunction();
  });
});

describe('generated client types', () => {
  // credentials by the spec's security scheme names (D121 client auth per security scheme): mini declares ClientId and ClientSecret (apiKey headers)
  const client = createPaygateClient({ baseUrl: 'http://localhost', auth: { ClientId: 'id', ClientSecret: () => 'secret' } });

  it('types auth by the spec scheme names; per-call extra headers compile', () => {
    // checked by tsc only: never called (the client refuses an undeclared scheme at run time too, and the calls
    // would send requests)
    const typeOnly = () => {
      // @ts-expect-error mini declares no scheme "bearerAuth"
      void createPaygateClient({ baseUrl: 'http://localhost', auth: { bearerAuth: 't' } });
      // @ts-expect-error an apiKey credential is a string (or a function returning one)
      void createPaygateClient({ baseUrl: 'http://localhost', auth: { ClientId: 1 } });
      // @ts-expect-error mini marks no scheme x-client-option: no top-level clientId
      void createPaygateClient({ baseUrl: 'http://localhost', clientId: 'id' });
      void client.orders.get('OD1', { headers: { Authorization: 'Bearer x', 'X-Request-ID': 'r1' } });
      // @ts-expect-error header values are strings
      void client.orders.get('OD1', { headers: { 'X-Request-ID': 1 } });
    };
    expectTypeOf(typeOnly).toBeFunction();
    expect(() => createPaygateClient({ baseUrl: 'http://localhost', auth: { bearerAuth: 't' } as never })).toThrow(
      /declares no security scheme "bearerAuth"/,
    );
  });

  it('groups by tag with noun-stripped method names', () => {
    expectTypeOf(client.orders.create).toBeFunction();
    expectTypeOf(client.orders.get).toBeFunction();
    expectTypeOf(client.orders.uploadDocument).toBeFunction();
    expectTypeOf(client.refunds.list).toBeFunction();
    expectTypeOf(client.refunds.listAll).toBeFunction();
    expectTypeOf(client.merchants.listAll).toBeFunction();
  });

  it('infers bodies, path params and queries', () => {
    expectTypeOf(client.orders.create).parameter(0).toHaveProperty('amount').toEqualTypeOf<string>();
    expectTypeOf(client.orders.get).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(client.refunds.list).parameter(0).toEqualTypeOf<{ page?: number; page_size?: number; payment_id?: string } | undefined>();
    // checked by tsc only: never called (the calls would send requests)
    const typeOnly = () => {
      // @ts-expect-error amount must be a string
      void client.orders.create({ amount: 10, currency: 'INR', reference_id: 'r', buyer: { name: 'a', email: 'a@b.c' } });
      // @ts-expect-error the body is required
      void client.orders.create();
      // D195: the methods are declared by the PaygateClient interface, as strictly as the per-operation functions were
      // @ts-expect-error the order id is a string
      void client.orders.get(42);
      // @ts-expect-error getOrder takes no body: one argument too many
      void client.orders.get('OD1', {}, { headers: {} });
      // @ts-expect-error no operation of the mini spec is named orders.delete
      void client.orders.delete('OD1');
      // @ts-expect-error listRefunds' query has no "status" parameter
      void client.refunds.list({ status: 'x' });
      void client.orders.create(
        { amount: '10.00', currency: 'INR', reference_id: 'r', buyer: { name: 'a', email: 'a@b.c' } },
        { headers: { 'X-Merchant-ID': '12345678' } },
      );
    };
    expectTypeOf(typeOnly).toBeFunction();
  });

  it('returns ApiResult with data typed from the 2xx response and a literal error-code union', () => {
    type Result = Awaited<ReturnType<typeof client.orders.get>>;
    type Ok = Extract<Result, { ok: true }>;
    type Err = Extract<Result, { ok: false }>;
    expectTypeOf<Ok['data']['data']['order_id']>().toEqualTypeOf<string>();
    expectTypeOf<PaygateErrorCode>().toEqualTypeOf<
      'ERR_AUTH_000' | 'ERR_INTERNAL_500' | 'ERR_ORDER_404' | 'ERR_REQUEST_404' | 'ERR_VALIDATION_400'
    >();
    expectTypeOf<Err['error']['error']['code']>().toEqualTypeOf<PaygateErrorCode | 'ERR_UNEXPECTED_RESPONSE'>();
  });

  it('types result.error as the union of the declared error schemas (D122)', () => {
    type Err = Extract<Awaited<ReturnType<typeof client.orders.get>>, { ok: false }>;
    type Declared = Exclude<Err['error'], UnexpectedResponseError>;
    // getOrder declares only 404: its schema, nothing else (an undeclared status is the synthesised unexpected error)
    expectTypeOf<Declared>().toEqualTypeOf<operations['getOrder']['responses'][404]['content']['application/json']>();
    expectTypeOf<Declared['error']['code']>().toEqualTypeOf<PaygateErrorCode>();
    expectTypeOf<Err['body']>().toEqualTypeOf<unknown>();
  });

  it('iterates list items with listAll', () => {
    type Item = ReturnType<typeof client.refunds.listAll> extends AsyncIterableIterator<infer T> ? T : never;
    expectTypeOf<Item>().toEqualTypeOf<{ refund_id: string; refund_amount: number }>();
    type Merchant = ReturnType<typeof client.merchants.listAll> extends AsyncIterableIterator<infer T> ? T : never;
    expectTypeOf<Merchant>().toEqualTypeOf<{ id: string; brand_name: string }>();
  });
});

describe('generated webhook types', () => {
  it('is a union discriminated on event_type, including AsyncAPI-only events', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<'MERCHANT_APPROVED' | 'PAYMENT_FAILED'>();
    const result = validateWebhookEvent({});
    if (result.ok) {
      const event: WebhookEvent = result.event;
      if (event.event_type === 'PAYMENT_FAILED') expectTypeOf(event.data.status).toEqualTypeOf<'FAILED'>();
      else expectTypeOf(event.data.merchant_id).toEqualTypeOf<string>();
    } else {
      expectTypeOf(result.errors).toEqualTypeOf<{ path: string; message: string }[]>();
    }
  });
});
