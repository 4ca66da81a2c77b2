import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { webhookEvents } from './generated/index.js';
import { createWebhookReceiver, type WebhookDeliveryContext } from './receiver.js';
import { buildWebhookHeaders, generateWebhookSecret } from './signing.js';

const NOW = 1_763_720_000; // fixed clock, seconds
const clock = () => new Date(NOW * 1000);
const SECRET = generateWebhookSecret();
const OLD_SECRET = generateWebhookSecret();

const paymentFailed = {
  event_type: 'PAYMENT_FAILED',
  event_time: '2025-11-21 10:13:20Z',
  version: '1.0',
  sequence_number: '5f0c6a1e-8b7a-4a53-9d0e-1c1f0b2a3c4d',
  data: {
    status: 'FAILED',
    message: 'Insufficient funds',
    mop_type: 'CARD',
    order_id: 'OD0000000000000001',
    payment_id: 'PR0000000000000001',
    bank_ref_num: '123456789012',
    payment_completed_at: '2025-11-21T10:13:19Z',
  },
};
const merchantApproved = {
  event_type: 'MERCHANT_APPROVED',
  event_time: '2025-11-21 10:13:20',
  version: '1.0',
  sequence_number: '6f0c6a1e-8b7a-4a53-9d0e-1c1f0b2a3c4d',
  data: { approved_at: '2025-11-21T10:13:20Z', merchant_id: '12345678', legal_name: 'Acme Pvt Ltd', trade_name: 'Acme' },
};
const paymentSettled = {
  event_type: 'PAYMENT_SETTLED',
  event_time: '2025-11-21 10:13:20',
  version: '1.0',
  sequence_number: '7f0c6a1e-8b7a-4a53-9d0e-1c1f0b2a3c4d',
  data: {
    settlements: [
      {
        settlement_id: 'ST1000000000000001',
        settlement_utr: 'UTR4K2M9Q7X1B',
        settlement_done_at: '2026-11-22T04:30:00.000000Z',
        forex_rate: 1,
        settlement_amount: 1464.6,
      },
    ],
  },
};

const failed = vi.fn<(event: unknown, ctx: WebhookDeliveryContext) => void>();
const approved = vi.fn<(event: unknown) => Promise<void>>();
const unhandled = vi.fn<(event: unknown) => void>();
const onError = vi.fn<(err: unknown) => void>();
const returned = vi.fn<(event: unknown, ctx: WebhookDeliveryContext) => void>();

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const app = express();
  // A global JSON parser that does NOT apply to the receiver route (mounted first), as in a typical app.
  app.post(
    '/hooks/stream',
    createWebhookReceiver({
      secrets: [SECRET, OLD_SECRET],
      clock,
      events: webhookEvents,
      on: {
        PAYMENT_FAILED: (event, ctx) => {
          expectTypeOf(event.data.order_id).toEqualTypeOf<string>();
          failed(event, ctx);
        },
        MERCHANT_APPROVED: async (event) => {
          expectTypeOf(event.data.legal_name).toEqualTypeOf<string>();
          if (event.data.trade_name === 'boom') throw new Error('db down');
          await approved(event);
        },
      },
      onUnhandled: unhandled,
      onError,
      maxBodyBytes: 4096,
    }),
  );
  app.post(
    '/hooks/raw',
    express.raw({ type: 'application/json' }),
    createWebhookReceiver({ secret: SECRET, clock, events: webhookEvents, on: { PAYMENT_FAILED: failed } }),
  );
  app.post('/hooks/parsed', express.json(), createWebhookReceiver({ secret: SECRET, clock, events: webhookEvents, on: {} }));
  // D212: an event known by name (Paygate's return-URL callback, a form post the browser sends unsigned) on its own route.
  app.post(
    '/hooks/return',
    express.urlencoded({ extended: false }),
    createWebhookReceiver({ unsigned: true, clock, events: webhookEvents.only('returnUrl'), on: { returnUrl: returned } }),
  );
  app.post('/hooks/unsigned', createWebhookReceiver({ unsigned: true, clock, events: webhookEvents, on: { PAYMENT_FAILED: failed } }));
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
});

beforeEach(() => {
  vi.clearAllMocks();
});

function deliver(
  path: string,
  event: unknown,
  opts: { secret?: string | string[]; timestamp?: number; body?: string; msgId?: string } = {},
) {
  const body = opts.body ?? JSON.stringify(event);
  const headers = buildWebhookHeaders({
    secret: opts.secret ?? SECRET,
    msgId: opts.msgId ?? 'msg_5f0c6a1e-8b7a-4a53-9d0e-1c1f0b2a3c4d',
    timestamp: opts.timestamp ?? NOW,
    payload: JSON.stringify(event),
  });
  return fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
}

describe('createWebhookReceiver (real Express app)', () => {
  it('verifies, validates and dispatches to the typed handler; 204', async () => {
    const res = await deliver('/hooks/stream', paymentFailed);
    expect(res.status).toBe(204);
    expect(failed).toHaveBeenCalledTimes(1);
    const [event, ctx] = failed.mock.calls[0]!;
    expect(event).toEqual(paymentFailed);
    expect(ctx.webhookId).toBe('msg_5f0c6a1e-8b7a-4a53-9d0e-1c1f0b2a3c4d');
    expect(ctx.timestamp).toEqual(new Date(NOW * 1000));
  });

  it('awaits async handlers', async () => {
    const res = await deliver('/hooks/stream', merchantApproved);
    expect(res.status).toBe(204);
    expect(approved.mock.calls[0]![0]).toEqual(merchantApproved);
  });

  it('accepts a delivery signed with an older secret still configured (rotation)', async () => {
    const res = await deliver('/hooks/stream', paymentFailed, { secret: OLD_SECRET });
    expect(res.status).toBe(204);
  });

  it('acknowledges valid events without a handler and reports them to onUnhandled', async () => {
    const res = await deliver('/hooks/stream', paymentSettled);
    expect(res.status).toBe(204);
    expect(unhandled.mock.calls[0]![0]).toEqual(paymentSettled);
  });

  it('uses a Buffer body from express.raw()', async () => {
    const res = await deliver('/hooks/raw', paymentFailed);
    expect(res.status).toBe(204);
    expect(failed).toHaveBeenCalledTimes(1);
  });

  it('400 no_matching_signature on a tampered body', async () => {
    const tampered = JSON.stringify({ ...paymentFailed, data: { ...paymentFailed.data, message: 'ok' } });
    const res = await deliver('/hooks/stream', paymentFailed, { body: tampered });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('no_matching_signature');
    expect(json.error.message).toMatch(/raw request body unmodified/);
    expect(failed).not.toHaveBeenCalled();
  });

  it('400 with an unknown secret', async () => {
    const res = await deliver('/hooks/stream', paymentFailed, { secret: generateWebhookSecret() });
    expect(res.status).toBe(400);
  });

  it('400 timestamp_too_old outside the tolerance', async () => {
    const res = await deliver('/hooks/stream', paymentFailed, { timestamp: NOW - 301 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('timestamp_too_old');
  });

  it('400 missing_headers', async () => {
    const res = await fetch(`${baseUrl}/hooks/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(paymentFailed),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('missing_headers');
  });

  it('400 invalid_event when the signed payload fails validation', async () => {
    const bad = { ...paymentFailed, data: { ...paymentFailed.data, order_id: 42 } };
    const res = await deliver('/hooks/stream', bad);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(json.error.code).toBe('invalid_event');
    expect(json.error.message).toContain('/data/order_id');
    expect(json.error.details).toEqual([{ path: '/data/order_id', message: 'must be string' }]);
  });

  it('400 payload_not_raw when express.json() already consumed the body', async () => {
    const res = await deliver('/hooks/parsed', paymentFailed);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('payload_not_raw');
    expect(json.error.message).toContain('express.raw');
  });

  it('413 when the body exceeds maxBodyBytes', async () => {
    const big = { ...paymentFailed, data: { ...paymentFailed.data, message: 'x'.repeat(5000) } };
    const res = await deliver('/hooks/stream', big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('500 only when the user handler throws, and reports it to onError', async () => {
    const res = await deliver('/hooks/stream', { ...merchantApproved, data: { ...merchantApproved.data, trade_name: 'boom' } });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('handler_error');
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(Error);
  });

  it('fails fast at startup on a malformed secret', () => {
    expect(() => createWebhookReceiver({ secret: 'whsec_???', events: webhookEvents, on: {} })).toThrow(/malformed/);
  });

  it('unsigned: an event known by name on its own route, parsed by express.urlencoded; validated all the same', async () => {
    const form = {
      order_id: 'OD1000000000000001',
      payment_id: 'PR1000000000000001',
      status: 'payment_successful',
      message: 'Payment captured',
      mop_type: 'UPI',
      bank_ref_num: '608123456789',
      payment_completed_at: '2026-11-21 10:15:30+00:00',
      hash: '7c1c412d1d35aa74287cee24b8f23d845df7711f0232a1828833105d8cd56525',
    };
    const post = (fields: Record<string, string>) =>
      fetch(`${baseUrl}/hooks/return`, { method: 'POST', body: new URLSearchParams(fields) });
    expect((await post(form)).status).toBe(204);
    expect(returned.mock.calls[0]![0]).toEqual(form);
    expect(returned.mock.calls[0]![1]).toMatchObject({ webhookId: '', timestamp: new Date(NOW * 1000) });
    const bad = await post({ ...form, hash: 'not-hex' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: unknown } }).error.details).toEqual([
      { path: '/hash', message: 'must match pattern "^[0-9a-f]{64}$"' },
    ]);
    expect(returned).toHaveBeenCalledTimes(1);
  });

  it('unsigned: the raw JSON body is parsed and dispatched by its discriminator; a body that is not JSON is 400 invalid_json', async () => {
    const post = (body: string) =>
      fetch(`${baseUrl}/hooks/unsigned`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post(JSON.stringify(paymentFailed))).status).toBe(204);
    expect(failed.mock.calls[0]![0]).toEqual(paymentFailed);
    const res = await post('{not json');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('refuses to start with neither a secret nor unsigned: true', () => {
    // @ts-expect-error a secret, secrets or unsigned: true is required
    expect(() => createWebhookReceiver({ events: webhookEvents, on: {} })).toThrow(/unsigned: true/);
  });

  it('types: handler map keys are the event types and handlers get the narrowed event', () => {
    createWebhookReceiver({
      secret: SECRET,
      events: webhookEvents,
      on: {
        PAYMENT_SETTLED: (event) => {
          expectTypeOf(event.data.settlements[0]!.settlement_amount).toEqualTypeOf<number>();
        },
        returnUrl: (event) => {
          expectTypeOf(event.hash).toEqualTypeOf<string>();
        },
        // @ts-expect-error unknown event type
        PAYMENT_SUCCEEDED: () => undefined,
      },
    });
    createWebhookReceiver({
      unsigned: true,
      events: webhookEvents.only('returnUrl'),
      on: {
        returnUrl: () => undefined,
        // @ts-expect-error not an event of this route
        PAYMENT_FAILED: () => undefined,
      },
    });
  });
});
