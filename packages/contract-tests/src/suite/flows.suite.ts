/**
 * Stateful flows (seed walkthroughs) through the HTTP API, every response checked against the spec:
 * merchant -> approve -> hosted order -> checkout page (GET, POST form) -> verified callback -> order read ->
 * refund -> settlement -> signed webhooks received by a real receiver; s2s intent and collection; failure; cancel;
 * session expiry via the sandbox clock; session reuse. The worker is driven with `runtime.worker.tick()`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCallback } from '@paygate/client';
import { EventType } from '@paygate/contract';
import { Webhook } from '@paygate/webhooks';
import { schemaValidator } from '../support/conformance.js';
import { gatewayTargets, isRemote, requireRuntime } from '../support/gateway.js';
import { dataOf, openPaygate, orderBody, type MerchantAccount, type Paygate } from '../support/paygate.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { useCoverage } from './coverage.js';

useCoverage('flows');

function unescapeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The auto-submitting redirect form of the checkout answer: action + hidden fields. */
function redirectForm(html: string): { action: string; fields: Record<string, string> } {
  const action =
    /<form[^>]*id="paygate-redirect"[^>]*action="([^"]*)"/.exec(html) ?? /<form[^>]*action="([^"]*)"[^>]*id="paygate-redirect"/.exec(html);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  return { action: action ? unescapeHtml(action[1]!) : '', fields };
}

interface EventEnvelope {
  event_type: string;
  event_time: string;
  version: string;
  sequence_number: string;
  data: Record<string, unknown>;
}

const EVENT_SCHEMA: Record<EventType, string> = {
  PAYMENT_FAILED: 'PaymentFailedEvent',
  PAYMENT_SETTLED: 'PaymentSettledEvent',
  MERCHANT_APPROVED: 'MerchantApprovedEvent',
  PAYMENT_CAPTURED: 'PaymentCapturedEvent',
  REFUND_PROCESSED: 'RefundProcessedEvent',
  REFUND_FAILED: 'RefundFailedEvent',
};

function isEventType(v: string): v is EventType {
  return (EventType as readonly string[]).includes(v);
}

describe.each(gatewayTargets())('flows [%s]', (target) => {
  let pg: Paygate;
  let receiver: WebhookReceiver;
  let webhook: Webhook;
  let m: MerchantAccount;
  const verifiedEvents: EventEnvelope[] = [];

  async function drainWebhooks(): Promise<void> {
    const rt = pg.gw.runtime;
    if (rt) {
      for (let i = 0; i < 5; i++) {
        const r = await rt.worker.tick();
        if (r.fannedOutEvents === 0 && r.deliveries.succeeded === 0 && r.deliveries.retry === 0) break;
      }
    } else {
      // remote deployment: its own worker delivers (poll interval ~1 s); give it a few seconds
      await new Promise((r) => setTimeout(r, 3000));
    }
    // Verify every delivery received so far (signature, timestamp window, schema of the event).
    // webhook-timestamp is real time whatever a merchant's sandbox clock says (D4 webhook-timestamp is real time, event_time sandbox time): verify against the real clock
    const verifier = webhook;
    for (const d of receiver.deliveries.splice(0)) {
      const event = verifier.verify<EventEnvelope>(d.raw, d.headers as Record<string, string>);
      expect(d.headers['webhook-id']).toBe(`msg_${event.sequence_number}`);
      const v = schemaValidator(isEventType(event.event_type) ? EVENT_SCHEMA[event.event_type] : 'ErrorEnvelope');
      expect(v(event), `${event.event_type}: ${JSON.stringify(v.errors)}`).toBe(true);
      verifiedEvents.push(event);
    }
  }
  let webhookSecret = '';
  let endpointId = '';

  beforeAll(async () => {
    pg = await openPaygate(target);
    receiver = await startWebhookReceiver();
    const ep = await pg.expectStatus(201, 'POST', '/webhooks/endpoints', pg.partner, {
      json: { url: receiver.url, events: [...EventType], description: 'contract receiver' },
    });
    webhookSecret = dataOf<{ secret: string }>(ep).secret;
    endpointId = dataOf<{ id: string }>(ep).id;
    webhook = new Webhook(webhookSecret);
    m = await pg.onboard();
  });

  afterAll(async () => {
    await receiver?.close();
    await pg?.close();
  });

  it('onboarding: merchant starts PENDING, approval is visible and announced by MERCHANT_APPROVED', async () => {
    const fresh = await pg.createMerchant();
    const before = dataOf<{ kyc_status: string; invoice_file: unknown }>(
      await pg.expectStatus(200, 'GET', `/partners/merchants/${fresh}/`, pg.partner),
    );
    expect(before.kyc_status).toBe('PENDING');
    expect(before.invoice_file).toBeNull();
    const list = dataOf<{ results: { id: string; kyc_status: string }[] }>(
      await pg.expectStatus(200, 'GET', '/partners/merchants/', pg.partner),
    );
    expect(list.results.find((r) => r.id === fresh)?.kyc_status).toBe('PENDING');
    await pg.approve(fresh);
    const after = dataOf<{ kyc_status: string }>(await pg.expectStatus(200, 'GET', `/partners/merchants/${fresh}/`, pg.partner));
    expect(after.kyc_status).toBe('APPROVED');
    // APPROVED is terminal
    const back = await pg.expectStatus(422, 'POST', `/sandbox/merchants/${fresh}/kyc`, pg.partner, { json: { status: 'REJECTED' } });
    expect(back.error?.code).toBe('ERR_MERCHANT_422');
    await drainWebhooks();
    expect(verifiedEvents.some((e) => e.event_type === 'MERCHANT_APPROVED' && e.data['merchant_id'] === fresh)).toBe(true);
  });

  it('an order created with an invoice reads back conformant (Invoice requires number, date and file)', async () => {
    const created = await pg.createOrder(m.credentials, orderBody({}, 'hosted', true));
    expect(created.status, created.text).toBe(200);
    const { order_id: orderId } = dataOf<{ order_id: string }>(created);
    const order = dataOf<{ invoice: { number: string; date: string; file: string | null } }>(
      await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials),
    );
    expect(order.invoice.file).toBeNull();
  });

  it('an unapproved merchant cannot create orders (422 ERR_MERCHANT_422)', async () => {
    const pending = await pg.createMerchant();
    const res = await pg.createOrder(pg.partner, orderBody(), { 'x-merchant-id': pending });
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('ERR_MERCHANT_422');
  });

  it('hosted checkout: page, form POST, verified callback, order paid, refund, settlement, PAYMENT_SETTLED', async () => {
    const created = await pg.createOrder(
      m.credentials,
      orderBody({ amount: '1500.00', return_url: 'https://shop.example/payments/return' }),
    );
    expect(created.status).toBe(200);
    const { order_id: orderId, session_id: sessionId } = dataOf<{ order_id: string; session_id: string }>(created);
    expect(orderId).toMatch(/^OD\d{16}$/);
    expect(sessionId).toMatch(/^session_[A-Za-z0-9_-]{43}$/);

    // ensure_resource_availability: readable right after creation, pending
    const pending = dataOf<{ status: string; payments: unknown[] }>(
      await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials),
    );
    expect(pending.status).toBe('payment_pending');

    const page = await pg.expectStatus(200, 'GET', `/checkout/${sessionId}`, undefined);
    expect(page.text).toContain('checkout-form');

    const submitted = await pg.expectStatus(200, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'success', mop_type: 'UPI' }),
    });
    const form = redirectForm(submitted.text);
    expect(form.action).toBe('https://shop.example/payments/return');
    const cbValid = schemaValidator('ReturnUrlCallback');
    expect(cbValid(form.fields), JSON.stringify(cbValid.errors)).toBe(true);
    expect(form.fields['status']).toBe('payment_successful');
    expect(form.fields['order_id']).toBe(orderId);
    expect(verifyCallback(form.fields, m.encryptionKey)).toBe(true);
    expect(verifyCallback({ ...form.fields, status: 'payment_failed' }, m.encryptionKey)).toBe(false);
    expect(verifyCallback({ ...form.fields, hash: undefined }, m.encryptionKey)).toBe(false);

    const order = dataOf<{
      status: string;
      is_testing: boolean;
      amount: number;
      payments: { payment_id: string; status: string; settlement: { status: string; settlement_details: unknown } }[];
    }>(await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials));
    expect(order.status).toBe('payment_successful');
    expect(order.is_testing).toBe(true);
    expect(order.amount).toBe(1500);
    expect(order.payments).toHaveLength(1);
    const payment = order.payments[0]!;
    expect(payment.payment_id).toBe(form.fields['payment_id']);
    expect(payment.status).toBe('captured');
    expect(payment.settlement.status).toBe('ready_for_settlement');

    const pay = dataOf<{ status: string }>(await pg.expectStatus(200, 'GET', `/pg/payments/${payment.payment_id}/`, m.credentials));
    expect(pay.status).toBe('CAPTURED');
    const payments = dataOf<{ results: { id: string }[] }>(
      await pg.expectStatus(200, 'GET', '/pg/payments/', m.credentials, { query: { status: 'CAPTURED', page_size: 5 } }),
    );
    expect(payments.results.some((p) => p.id === payment.payment_id)).toBe(true); // list items: `id` = payment id

    // session is single use
    const reuse = await pg.expectStatus(401, 'GET', `/checkout/${sessionId}`, undefined);
    expect(reuse.error?.code).toBe('ERR_AUTH_000');
    expect(reuse.error?.details?.['session_id']).toBeTruthy();
    const repost = await pg.expectStatus(401, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'success' }),
    });
    expect(repost.error?.details?.['session_id']).toBeTruthy();

    // refunds: partial, then over the refundable amount
    const refund = dataOf<{ refund_id: string; refund_status: string; refund_amount: number }>(
      await pg.expectStatus(200, 'POST', '/pg/refunds', m.credentials, {
        json: { payment_id: payment.payment_id, refund_amount: '500.00' },
      }),
    );
    expect(refund.refund_status).toBe('INITIATED');
    expect(refund.refund_amount).toBe(500);
    await pg.expectStatus(200, 'GET', `/pg/refunds/${refund.refund_id}`, m.credentials);
    const over = await pg.expectStatus(422, 'POST', '/pg/refunds', m.credentials, {
      json: { payment_id: payment.payment_id, refund_amount: '1000.01' },
    });
    expect(over.error?.code).toBe('ERR_REFUND_422');
    expect(over.error?.details?.['refund_amount']).toBeTruthy();
    const processed = dataOf<{ refund_status: string; refunded_at: string | null }>(
      await pg.expectStatus(200, 'POST', `/sandbox/refunds/${refund.refund_id}/complete`, m.credentials, {
        json: { outcome: 'processed' },
      }),
    );
    expect(processed.refund_status).toBe('PROCESSED');
    expect(processed.refunded_at).toBeTruthy();
    const refunds = await pg.expectStatus(200, 'GET', '/pg/refunds', m.credentials, { query: { payment_id: payment.payment_id } });
    expect((refunds.json as { results: { refund_id: string }[] }).results.map((r) => r.refund_id)).toContain(refund.refund_id);

    // settlement
    const run = dataOf<{ settlements: { settlement_id: string; transactions: { transaction_id: string }[] }[] }>(
      await pg.expectStatus(200, 'POST', '/sandbox/settlements/run', pg.partner, { json: { merchant_id: m.merchantId } }),
    );
    const settlement = run.settlements.find((s) => s.transactions.some((t) => t.transaction_id === payment.payment_id));
    expect(settlement, JSON.stringify(run)).toBeDefined();
    await pg.expectStatus(200, 'GET', `/pg/settlements/${settlement!.settlement_id}`, m.credentials);
    const settlements = dataOf<{ results: { settlement_id: string }[] }>(
      await pg.expectStatus(200, 'GET', '/pg/settlements', m.credentials),
    );
    expect(settlements.results.map((s) => s.settlement_id)).toContain(settlement!.settlement_id);
    const settled = dataOf<{ payments: { settlement: { status: string; settlement_details: { settlement_id: string } | null } }[] }>(
      await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials),
    );
    expect(settled.payments[0]!.settlement.status).toBe('settled');
    expect(settled.payments[0]!.settlement.settlement_details?.settlement_id).toBe(settlement!.settlement_id);
    // B15: the payment read's settlement carries the settlement id in both `id` and `settlement_id`
    const settledPayment = dataOf<{ settlement: { id: string; settlement_id: string } | null }>(
      await pg.expectStatus(200, 'GET', `/pg/payments/${payment.payment_id}/`, m.credentials),
    );
    expect(settledPayment.settlement).toMatchObject({ id: settlement!.settlement_id, settlement_id: settlement!.settlement_id });

    await drainWebhooks();
    const ev = verifiedEvents.find(
      (e) =>
        e.event_type === 'PAYMENT_SETTLED' &&
        (e.data['settlements'] as { settlement_id: string }[]).some((s) => s.settlement_id === settlement!.settlement_id),
    );
    expect(ev, JSON.stringify(verifiedEvents.map((e) => e.event_type))).toBeDefined();
    const captured = verifiedEvents.find((e) => e.event_type === 'PAYMENT_CAPTURED' && e.data['order_id'] === orderId);
    expect(captured?.data).toMatchObject({ status: 'CAPTURED', payment_id: payment.payment_id, payment_amount: 1500, mop_type: 'UPI' });
    const refunded = verifiedEvents.find((e) => e.event_type === 'REFUND_PROCESSED' && e.data['refund_id'] === refund.refund_id);
    expect(refunded?.data).toMatchObject({ status: 'PROCESSED', payment_id: payment.payment_id, refund_amount: 500 });
  });

  it('hosted checkout failure: callback payment_failed, order payment_failed, PAYMENT_FAILED delivered', async () => {
    const { order_id: orderId, session_id: sessionId } = dataOf<{ order_id: string; session_id: string }>(
      await pg.createOrder(m.credentials),
    );
    const res = await pg.expectStatus(200, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'failure', mop_type: 'CREDIT_CARD' }),
    });
    const { fields } = redirectForm(res.text);
    expect(fields['status']).toBe('payment_failed');
    expect(verifyCallback(fields, m.encryptionKey)).toBe(true);
    const order = dataOf<{ status: string; payments: { status: string; settlement: { status: string } }[] }>(
      await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials),
    );
    expect(order.status).toBe('payment_failed');
    expect(order.payments[0]?.status).toBe('failed');
    expect(order.payments[0]?.settlement.status).toBe('not_applicable');
    // refund of a failed payment
    const refund = await pg.expectStatus(422, 'POST', '/pg/refunds', m.credentials, {
      json: { payment_id: fields['payment_id'], refund_amount: '1.00' },
    });
    expect(refund.error?.code).toBe('ERR_REFUND_422');
    await drainWebhooks();
    expect(verifiedEvents.some((e) => e.event_type === 'PAYMENT_FAILED' && e.data['order_id'] === orderId)).toBe(true);
  });

  it('hosted checkout by card: an invalid card re-shows the page (422), a 3-D Secure test card is approved, mop_detail keeps last4 + network', async () => {
    const created = await pg.createOrder(m.credentials, orderBody({ mop_type: 'DEBIT_CARD' }));
    const { order_id: orderId, session_id: sessionId } = dataOf<{ order_id: string; session_id: string }>(created);
    const card = { outcome: 'success', mop_type: 'DEBIT_CARD', card_expiry: '12/35', card_cvc: '123', card_name: 'Priya Sharma' };
    // the order names its method: another one is refused on the page
    const otherMethod = await pg.expectStatus(422, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'success', mop_type: 'UPI' }),
    });
    expect(otherMethod.text).toContain('This order can only be paid by Debit card');
    const rejected = await pg.expectStatus(422, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ ...card, card_number: '4242 4242 4242 4241' }),
      headers: { accept: 'text/html' },
    });
    expect(rejected.text).toContain('id="card_number-error"');
    // a field error keeps the typed number so the shopper sees the typo (a decline never keeps it)
    expect(rejected.text).toMatch(/name="card_number"[^>]*value="4242 4242 4242 4241"|value="4242 4242 4242 4241"[^>]*name="card_number"/);
    const challenge = await pg.expectStatus(200, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ ...card, card_number: '4000 0000 0000 3220' }),
    });
    expect(challenge.text).toContain('three_ds_result');
    const res = await pg.expectStatus(200, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'success', three_ds_result: 'approved' }),
    });
    const { fields } = redirectForm(res.text);
    expect(fields).toMatchObject({ status: 'payment_successful', mop_type: 'DEBIT_CARD' });
    expect(verifyCallback(fields, m.encryptionKey)).toBe(true);
    const payment = dataOf<{ mop_type: string; mop_detail: Record<string, string> }>(
      await pg.expectStatus(200, 'GET', `/pg/payments/${fields['payment_id']}/`, m.credentials),
    );
    expect(payment).toMatchObject({ mop_type: 'DEBIT_CARD', mop_detail: { card_last4: '3220', card_network: 'visa' } });
    expect(orderId).toBe(fields['order_id']);
    // the session is used: a browser gets a page saying so, an API client ERR_AUTH_000
    const page = await pg.expectStatus(401, 'GET', `/checkout/${sessionId}`, undefined, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('This payment link has already been used');
    const api = await pg.expectStatus(401, 'GET', `/checkout/${sessionId}`, undefined, { headers: { accept: 'application/json' } });
    expect(api.error?.code).toBe('ERR_AUTH_000');
  });

  it('hosted checkout cancel: callback payment_cancelled with empty payment_id, order cancelled', async () => {
    const { order_id: orderId, session_id: sessionId } = dataOf<{ order_id: string; session_id: string }>(
      await pg.createOrder(m.credentials),
    );
    const res = await pg.expectStatus(200, 'POST', `/checkout/${sessionId}`, undefined, {
      body: new URLSearchParams({ outcome: 'cancel' }),
    });
    const { fields } = redirectForm(res.text);
    expect(fields['status']).toBe('payment_cancelled');
    // D3: no payment was made, so its fields are empty strings (hashed as such)
    expect(fields).toMatchObject({ payment_id: '', bank_ref_num: '', payment_completed_at: '' });
    expect(verifyCallback(fields, m.encryptionKey)).toBe(true);
    const order = dataOf<{ status: string }>(await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials));
    expect(order.status).toBe('payment_cancelled');
    // a final order cannot be completed again
    await pg.expectStatus(401, 'POST', `/sandbox/checkout/${sessionId}/complete`, m.credentials, { json: { outcome: 'success' } });
  });

  it('s2s UPI intent: intent_uri, then sandbox completion captures the payment', async () => {
    const res = await pg.createOrder(m.credentials, orderBody({ upi_app_name: 'phonepe' }, 'intent'));
    expect(res.status, res.text).toBe(200);
    const { order_id: orderId, intent_uri: intentUri } = dataOf<{ order_id: string; intent_uri: string }>(res);
    expect(intentUri).toMatch(/^[a-z]+:\/\/pay\?/); // upi:// or the chosen app's scheme (phonepe://)
    // the payment is PENDING until the customer pays: no bank reference yet (the spec: null while PENDING)
    const created = dataOf<{ payments: { payment_id: string }[] }>(
      await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials),
    );
    const paymentPath = `/pg/payments/${created.payments[0]!.payment_id}/`;
    expect(dataOf(await pg.expectStatus(200, 'GET', paymentPath, m.credentials))).toMatchObject({
      status: 'PENDING',
      bank_ref_num: null,
      payment_completed_at: null,
    });
    const done = dataOf<{ status: string; payments: { status: string }[] }>(
      await pg.expectStatus(200, 'POST', `/sandbox/orders/${orderId}/complete`, m.credentials, { json: { outcome: 'success' } }),
    );
    expect(done.status).toBe('payment_successful');
    expect(done.payments[0]?.status).toBe('captured');
    expect(dataOf(await pg.expectStatus(200, 'GET', paymentPath, m.credentials))).toMatchObject({
      status: 'CAPTURED',
      bank_ref_num: expect.stringMatching(/^\d+$/),
    });
    await drainWebhooks();
    expect(verifiedEvents.some((e) => e.event_type === 'PAYMENT_CAPTURED' && e.data['order_id'] === orderId)).toBe(true);
    const again = await pg.expectStatus(422, 'POST', `/sandbox/orders/${orderId}/complete`, m.credentials, {
      json: { outcome: 'failure' },
    });
    expect(again.error?.code).toBe('ERR_ORDER_422');
  });

  it('s2s UPI collection: request sent to the VPA, failure -> payment_failed + PAYMENT_FAILED', async () => {
    const res = await pg.createOrder(m.credentials, orderBody({ vpa: 'priya@okhdfcbank' }, 'collection'));
    expect(res.status, res.text).toBe(200);
    const { order_id: orderId, message } = dataOf<{ order_id: string; message: string }>(res);
    expect(message).toBeTruthy();
    const done = dataOf<{ status: string }>(
      await pg.expectStatus(200, 'POST', `/sandbox/orders/${orderId}/complete`, m.credentials, { json: { outcome: 'failure' } }),
    );
    expect(done.status).toBe('payment_failed');
    await drainWebhooks();
    expect(verifiedEvents.some((e) => e.event_type === 'PAYMENT_FAILED' && e.data['order_id'] === orderId)).toBe(true);
  });

  it('idempotency: replay returns the stored answer, a different body with the same key is 422', async () => {
    const key = `contract-${Date.now()}`;
    const body = orderBody();
    const first = await pg.createOrder(m.credentials, body, { 'idempotency-key': key });
    const second = await pg.createOrder(m.credentials, body, { 'idempotency-key': key });
    expect(second.status).toBe(first.status);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const third = await pg.createOrder(m.credentials, { ...body, amount: '2.00' }, { 'idempotency-key': key });
    expect(third.status).toBe(422);
    expect(third.error?.code).toBe('ERR_IDEMPOTENCY_422');
    // reference_id reuse without a key
    const dup = await pg.createOrder(m.credentials, body);
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('ERR_ORDER_409');
  });

  it('corrections and documents: PATCH order/merchant, upload merchant and order documents', async () => {
    const { order_id: orderId } = dataOf<{ order_id: string }>(await pg.createOrder(m.credentials));
    const patched = dataOf<{ data: { buyer: { pan_number: string }; invoice: { number: string } } }>(
      await pg.expectStatus(200, 'PATCH', `/pg/orders/${orderId}`, m.credentials, {
        json: { buyer: { pan_number: 'ABCDE1234F', dob: '1990-04-15' }, invoice: { number: 'INV-9', date: '2026-11-21' } },
      }),
    );
    expect(patched.data.buyer.pan_number).toBe('ABCDE1234F');
    expect(patched.data.invoice.number).toBe('INV-9');
    const upd = dataOf<{ updated_fields: string[] }>(
      await pg.expectStatus(200, 'PATCH', `/partners/merchants/${m.merchantId}/`, pg.partner, {
        json: { settlement_details: { bank_country: 'US' } },
      }),
    );
    expect(upd.updated_fields).toEqual(['settlement_details']);
    const merchant = dataOf<{ settlement_details: { settlement_currency: string } }>(
      await pg.expectStatus(200, 'GET', `/partners/merchants/${m.merchantId}/`, pg.partner),
    );
    expect(merchant.settlement_details.settlement_currency).toBe('USD');

    const pdf = new Blob([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1')], {
      type: 'application/pdf',
    });
    const mform = new FormData();
    mform.set('document_type', 'INVOICE');
    mform.set('file', pdf, 'invoice.pdf');
    await pg.expectStatus(200, 'PATCH', `/partners/merchants/${m.merchantId}/documents/`, pg.partner, { body: mform });
    const withFile = dataOf<{ invoice_file: string | null }>(
      await pg.expectStatus(200, 'GET', `/partners/merchants/${m.merchantId}/`, pg.partner),
    );
    expect(withFile.invoice_file).toMatch(/^https?:\/\//);

    const { order_id: docOrderId } = dataOf<{ order_id: string }>(await pg.createOrder(m.credentials));
    const oform = new FormData();
    oform.set('document_type', 'air_waybill');
    oform.set('identifier', 'AWB123456789');
    oform.set('file', pdf, 'awb.pdf');
    const order = dataOf<{ air_waybills: { number: string; file: string }[] }>(
      await pg.expectStatus(200, 'POST', `/pg/orders/${docOrderId}/documents/`, m.credentials, { body: oform }),
    );
    expect(order.air_waybills.map((a) => a.number)).toContain('AWB123456789');
  });
  it('a refund the processor fails: refund FAILED, REFUND_FAILED delivered, the amount refundable again', async () => {
    const { paymentId } = await pg.paidOrder(m, '200.00');
    const refund = dataOf<{ refund_id: string }>(
      await pg.expectStatus(200, 'POST', '/pg/refunds', m.credentials, { json: { payment_id: paymentId, refund_amount: '200.00' } }),
    );
    const failed = dataOf<{ refund_status: string }>(
      await pg.expectStatus(200, 'POST', `/sandbox/refunds/${refund.refund_id}/complete`, m.credentials, { json: { outcome: 'failed' } }),
    );
    expect(failed.refund_status).toBe('FAILED');
    await drainWebhooks();
    const ev = verifiedEvents.find((e) => e.event_type === 'REFUND_FAILED' && e.data['refund_id'] === refund.refund_id);
    expect(ev?.data).toMatchObject({ status: 'FAILED', payment_id: paymentId, refund_amount: 200 });
    await pg.expectStatus(200, 'POST', '/pg/refunds', m.credentials, { json: { payment_id: paymentId, refund_amount: '200.00' } });
  });

  it('deliveries: listed with their attempts, redelivered with the same webhook-id, invisible to other tenants', async () => {
    const { orderId } = await pg.paidOrder(m, '75.00');
    await drainWebhooks();
    const page = dataOf<{
      count: number;
      results: { id: string; event_type: string; webhook_id: string; status: string; attempts: { status_code: number | null }[] }[];
    }>(
      await pg.expectStatus(200, 'GET', `/webhooks/endpoints/${endpointId}/deliveries`, pg.partner, {
        query: { status: 'succeeded', page_size: 50 },
      }),
    );
    const captured = verifiedEvents.find((e) => e.event_type === 'PAYMENT_CAPTURED' && e.data['order_id'] === orderId)!;
    const delivery = page.results.find((d) => d.webhook_id === `msg_${captured.sequence_number}`);
    expect(delivery, JSON.stringify(page.results.slice(0, 3))).toMatchObject({
      event_type: 'PAYMENT_CAPTURED',
      status: 'succeeded',
      attempts: [{ status_code: 200 }],
    });

    // another merchant's credentials: neither the partner's endpoint nor its deliveries exist for it
    const other = await pg.onboard();
    await pg.expectStatus(404, 'GET', `/webhooks/endpoints/${endpointId}/deliveries`, other.credentials);
    await pg.expectStatus(404, 'POST', `/webhooks/deliveries/${delivery!.id}/redeliver`, other.credentials);

    const scheduled = dataOf<{ status: string }>(
      await pg.expectStatus(202, 'POST', `/webhooks/deliveries/${delivery!.id}/redeliver`, pg.partner),
    );
    expect(scheduled.status).toBe('pending');
    await drainWebhooks();
    const again = verifiedEvents.filter((e) => e.sequence_number === captured.sequence_number);
    expect(again).toHaveLength(2); // the same event, verified twice under the same webhook-id
    const after = dataOf<{ results: { id: string; attempts: unknown[]; status: string }[] }>(
      await pg.expectStatus(200, 'GET', `/webhooks/endpoints/${endpointId}/deliveries`, pg.partner, { query: { page_size: 50 } }),
    );
    expect(after.results.find((d) => d.id === delivery!.id)).toMatchObject({ status: 'succeeded', attempts: [{}, {}] });
    const enabled = dataOf<{ status: string }>(await pg.expectStatus(200, 'POST', `/webhooks/endpoints/${endpointId}/enable`, pg.partner));
    expect(enabled.status).toBe('enabled'); // idempotent on an enabled endpoint
  });

  // Sandbox-clock tests last: moving m's clock ages every open session of m (only m's: clocks are per merchant).
  it('refunds are processed automatically 60 s (sandbox time) after creation by the worker', async () => {
    if (isRemote()) return;
    const { paymentId } = await pg.paidOrder(m, '300.00');
    const refund = dataOf<{ refund_id: string }>(
      await pg.expectStatus(200, 'POST', '/pg/refunds', m.credentials, { json: { payment_id: paymentId, refund_amount: '300.00' } }),
    );
    await pg.expectStatus(200, 'POST', '/sandbox/clock/advance', pg.partner, { json: { seconds: 61, merchant_id: m.merchantId } });
    await requireRuntime(pg.gw).worker.tick();
    const r = dataOf<{ refund_status: string }>(await pg.expectStatus(200, 'GET', `/pg/refunds/${refund.refund_id}`, m.credentials));
    expect(r.refund_status).toBe('PROCESSED');
    await drainWebhooks();
    expect(verifiedEvents.some((e) => e.event_type === 'REFUND_PROCESSED' && e.data['refund_id'] === refund.refund_id)).toBe(true);
  });

  it('session expiry: after 15 minutes of sandbox time the session is rejected and the order cancelled', async () => {
    const { order_id: orderId, session_id: sessionId } = dataOf<{ order_id: string; session_id: string }>(
      await pg.createOrder(m.credentials),
    );
    await pg.expectStatus(200, 'GET', `/checkout/${sessionId}`, undefined);
    const clock = dataOf<{ offset_seconds: number; merchant_id: string }>(
      await pg.expectStatus(200, 'POST', '/sandbox/clock/advance', m.credentials, { json: { seconds: 15 * 60 + 1 } }),
    );
    expect(clock).toMatchObject({ merchant_id: m.merchantId });
    expect(clock.offset_seconds).toBeGreaterThanOrEqual(901);
    if (pg.gw.runtime) await pg.gw.runtime.worker.tick();
    const expired = await pg.expectStatus(401, 'GET', `/checkout/${sessionId}`, undefined);
    expect(expired.error?.code).toBe('ERR_AUTH_000');
    expect(expired.error?.details?.['session_id']).toBeTruthy();
    const order = dataOf<{ status: string }>(await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials));
    expect(order.status).toBe('payment_cancelled');
  });
});
