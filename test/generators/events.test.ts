/**
 * The generated events of the two event fixtures (D210-D212), type-checked by `npm run typecheck` and run here:
 * - events31 (OpenAPI 3.1): webhooks and callbacks discriminated on `event`, callbacks known by name (a plain-text
 *   heartbeat, two `status` callbacks with different payloads);
 * - callbacks30 (OpenAPI 3.0): callbacks only, no discriminator (one notification schema for two callbacks).
 * The receiver dispatches both kinds: by discriminator on one route, by name on a callback's own route.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { buildWebhookHeaders, generateWebhookSecret } from '../../packages/webhooks/src/signing.js';
import { createWebhookReceiver } from '../../packages/webhooks/src/receiver.js';
import * as notify from '../fixtures/callbacks30/generated/webhooks/index.js';
import * as parcels from '../fixtures/events31/generated/webhooks/index.js';

const shipped = {
  event: 'parcel.shipped',
  object: 'event',
  parcel_id: 'pcl_1',
  shipped_at: '2026-01-02T03:04:05Z',
  carrier: 'dhl',
} as const;
const delivered = { event: 'parcel.delivered', object: 'event', parcel_id: 'pcl_1', signed_by: 'Ada' } as const;

describe('events31: webhooks and callbacks discriminated on `event`, others known by name', () => {
  it('types: a union of the discriminated events, a map of every event by name', () => {
    expectTypeOf<parcels.WebhookEventType>().toEqualTypeOf<'parcel.delivered' | 'parcel.lost' | 'parcel.shipped'>();
    expectTypeOf<parcels.WebhookEventName>().toEqualTypeOf<
      'createExport.status' | 'createSubscription.status' | 'heartbeat' | 'parcel.delivered' | 'parcel.lost' | 'parcel.shipped'
    >();
    expectTypeOf<parcels.WebhookEventMap['heartbeat']>().toEqualTypeOf<string>();
    expectTypeOf<parcels.WebhookEventMap['createExport.status']['state']>().toEqualTypeOf<'ready' | 'failed'>();
    expectTypeOf<parcels.WebhookEventMap['parcel.lost']['parcel_id']>().toEqualTypeOf<string>();
    const describeEvent = (event: parcels.WebhookEvent): string => {
      if (event.event === 'parcel.delivered') return event.signed_by;
      if (event.event === 'parcel.shipped') return event.shipped_at;
      return event.parcel_id;
    };
    expect(describeEvent(delivered)).toBe('Ada');
    // @ts-expect-error a callback's name is no event type of the union
    expectTypeOf<parcels.WebhookEventType>().toEqualTypeOf<'heartbeat'>();
  });

  it.each([
    ['a webhook by its discriminator', shipped, 'parcel.shipped'],
    ['a callback by its discriminator', delivered, 'parcel.delivered'],
  ])('validateWebhookEvent and webhookEvents.validate: %s', (_name, body, name) => {
    expect(parcels.validateWebhookEvent(body)).toEqual({ ok: true, event: body });
    expect(parcels.webhookEvents.validate(body)).toEqual({ ok: true, name, event: body });
  });

  it.each([
    ['a webhook without a required field', { ...shipped, shipped_at: undefined }, "must have required property 'shipped_at'"],
    ['a pattern broken', { ...delivered, parcel_id: 'x' }, 'must match pattern "^pcl_"'],
    ['a callback known by name only', { subscription_id: 's', active: true }, "must have required property 'event'"],
  ])('validateWebhookEvent refuses %s', (_name, body, message) => {
    expect(parcels.validateWebhookEvent(JSON.parse(JSON.stringify(body)))).toMatchObject({ ok: false, errors: [{ message }] });
  });

  it.each([
    ['heartbeat', 'alive', true],
    ['heartbeat', 'x'.repeat(17), false],
    ['createExport.status', { export_id: 'exp_1', state: 'ready', download_url: null }, true],
    ['createExport.status', { export_id: 'exp_1', state: 'gone' }, false],
    ['createSubscription.status', { subscription_id: 's', active: true }, true],
    ['createSubscription.status', { export_id: 'exp_1', state: 'ready' }, false],
    ['parcel.delivered', delivered, true],
    ['parcel.delivered', shipped, false],
  ] as const)('validateEvent(%j, ...) -> %s', (name, body, ok) => {
    expect(parcels.validateEvent(name, body).ok).toBe(ok);
  });
});

describe('callbacks30 (OpenAPI 3.0): callbacks known by name only', () => {
  const notification = { id: 'pay_1', kind: 'payment', status: 'succeeded', amount: null } as const;

  it('types: no union, a map by name (two events share one payload type)', () => {
    expectTypeOf<notify.WebhookEvent>().toBeNever();
    expectTypeOf<notify.WebhookEventType>().toBeNever();
    expectTypeOf<notify.WebhookEventName>().toEqualTypeOf<'paymentFailed' | 'paymentSucceeded' | 'refundDone'>();
    expectTypeOf<notify.WebhookEventMap['paymentFailed']>().toEqualTypeOf<notify.WebhookEventMap['paymentSucceeded']>();
    expectTypeOf<notify.WebhookEventMap['refundDone']['note']>().toEqualTypeOf<string | null | undefined>();
    const result = notify.validateEvent('refundDone', {});
    if (result.ok) expectTypeOf(result.event.amount).toEqualTypeOf<number>();
  });

  it.each([
    ['paymentSucceeded', notification, true],
    ['paymentFailed', { ...notification, status: 'failed', amount: 5 }, true],
    ['paymentFailed', { ...notification, amount: -1 }, false],
    ['refundDone', { refund_id: 'rf_1', amount: 1, note: null }, true],
    ['refundDone', { refund_id: 'rf_1', amount: 0 }, false],
  ] as const)('validateEvent(%j, ...) -> %s', (name, body, ok) => {
    expect(notify.validateEvent(name, body).ok).toBe(ok);
  });

  it('a body alone names no event: validateWebhookEvent and the whole catalog say so', () => {
    expect(notify.validateWebhookEvent(notification)).toMatchObject({ ok: false, errors: [{ message: /validate each by its name/ }] });
    expect(notify.webhookEvents.validate(notification)).toMatchObject({ ok: false, errors: [{ message: /cannot tell which of/ }] });
    expect(notify.webhookEvents.only('paymentFailed').validate(notification)).toEqual({
      ok: true,
      name: 'paymentFailed',
      event: notification,
    });
  });
});

describe('createWebhookReceiver with another API’s events (D212)', () => {
  const secret = generateWebhookSecret();
  const received = vi.fn<(name: string, event: unknown) => void>();
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    const app = express();
    // the union on one signed route; each callback known by name on its own route (the URL given to its operation)
    app.post(
      '/parcels',
      createWebhookReceiver({
        secret,
        events: parcels.webhookEvents,
        on: {
          'parcel.delivered': (event) => received('parcel.delivered', event.signed_by),
          'parcel.shipped': (event) => received('parcel.shipped', event.shipped_at),
        },
      }),
    );
    app.post(
      '/exports/status',
      createWebhookReceiver({
        unsigned: true,
        events: parcels.webhookEvents.only('createExport.status'),
        on: { 'createExport.status': (event) => received('createExport.status', event.state) },
      }),
    );
    app.post(
      '/payments/succeeded',
      createWebhookReceiver({
        unsigned: true,
        events: notify.webhookEvents.only('paymentSucceeded'),
        on: { paymentSucceeded: (event) => received('paymentSucceeded', event.status) },
      }),
    );
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const signed = (body: unknown) =>
    buildWebhookHeaders({ secret, msgId: 'msg_1', timestamp: Math.floor(Date.now() / 1000), payload: JSON.stringify(body) });

  it.each([
    ['/parcels', delivered, true, ['parcel.delivered', 'Ada']],
    ['/parcels', shipped, true, ['parcel.shipped', shipped.shipped_at]],
    ['/exports/status', { export_id: 'exp_1', state: 'failed' }, false, ['createExport.status', 'failed']],
    ['/payments/succeeded', { id: 'pay_1', kind: 'payment', status: 'succeeded' }, false, ['paymentSucceeded', 'succeeded']],
  ])('%s: %j is dispatched to its handler (204)', async (path, body, sign, call) => {
    received.mockClear();
    const res = await post(path, body, sign ? signed(body) : {});
    expect(res.status).toBe(204);
    expect(received.mock.calls).toEqual([call]);
  });

  it.each([
    ['/parcels', { subscription_id: 's', active: true }, true, /must have required property 'event'/],
    ['/exports/status', { export_id: 'exp_1', state: 'gone' }, false, /must be equal to one of the allowed values/],
    ['/payments/succeeded', { id: 'pay_1', kind: 'refund', status: 'succeeded' }, false, /\/kind/],
  ])('%s: %j is refused 400 invalid_event, naming the field', async (path, body, sign, message) => {
    received.mockClear();
    const res = await post(path, body, sign ? signed(body) : {});
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('invalid_event');
    expect(json.error.message).toMatch(message);
    expect(received).not.toHaveBeenCalled();
  });
});
