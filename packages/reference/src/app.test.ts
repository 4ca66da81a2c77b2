import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createPaygateClient, verifyCallback } from '@paygate/client';
import { Webhook } from '@paygate/webhooks';
import type { Express } from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type ReferenceConfig } from './core/config.js';
import { createLogger } from './http/logger.js';
import { openReference, type ReferenceRuntime } from './runtime.js';
import { usePgliteTemplate } from './testing/pglite-template.js';
import { companyDetails, settlementDetails } from './testing/fixtures.js';
import { seedHistory } from './testing/seed-history.js';
import { testTargets, type TestTarget } from './testing/test-db.js';
import { idempotencyLockId } from './idempotency/store.js';
import { createReferenceApp, idempotentOperationIds } from './app.js';

/** One HTTP server whose handler can be swapped (the port must be known before the runtime is configured). */
async function listenSwappable(): Promise<{ server: Server; port: number; setApp(app: Express): void }> {
  let current: Express | undefined;
  const server = createServer((req, res) => {
    if (current) current(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, setApp: (app) => (current = app) };
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A real local webhook receiver recording raw deliveries. */
async function startReceiver(): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries };
}

/** A fresh PostgreSQL database (dropped in `drop`). */
async function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL']!;
  const name = `paygate_http_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}

function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[decode(m[1]!)] = decode(m[2]!);
  return fields;
}

const PDF = new Uint8Array([...Buffer.from('%PDF-1.4\n%test document\n'), ...Buffer.from('trailer\n%%EOF\n')]);

type CreateOrderBody = Parameters<ReturnType<typeof createPaygateClient>['orders']['create']>[0];

/**
 * An order body. The cast: the generated client types make every field with a spec `default` (collection_mode,
 * upi_app_name) required in request bodies, although the server treats them as optional.
 */
function hostedOrder(reference: string, extra: Record<string, unknown> = {}): CreateOrderBody {
  return {
    amount: '1500.00',
    currency: 'INR',
    reference_id: reference,
    buyer: {
      name: 'Priya Sharma',
      email: 'priya@example.com',
      phone: '+919876543210',
      address: { line_1: 'Flat 4B', line_2: 'Carter Road', city: 'Mumbai', state: 'MH', postal_code: '400050' },
    },
    product: {
      name: 'Silk saree',
      description: 'Hand-woven',
      hs_code: '500720',
      hs_code_description: 'Woven silk',
      type_of_goods: 'goods',
    },
    collection_mode: 'hosted_payment' as const,
    ...extra,
  } as CreateOrderBody;
}

describe.each(testTargets())('reference gateway over HTTP (%s)', (target: TestTarget) => {
  const partnerId = 'pk_test_integration';
  const partnerSecret = `ps_test_${randomBytes(24).toString('base64url')}`;
  const logLines: string[] = [];
  let http: Awaited<ReturnType<typeof listenSwappable>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let runtime: ReferenceRuntime;
  let config: ReferenceConfig;
  let base: string;
  let dropDb: (() => Promise<void>) | undefined;
  const extraServers: Server[] = [];

  const partner = () => createPaygateClient({ baseUrl: base, clientId: partnerId, clientSecret: partnerSecret, maxRetries: 0 });
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _enc, cb) {
        logLines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((l) => l.length > 0),
        );
        cb();
      },
    }),
  });

  beforeAll(async () => {
    http = await listenSwappable();
    receiver = await startReceiver();
    base = `http://127.0.0.1:${http.port}`;
    let databaseUrl: string | undefined;
    if (target === 'postgres') {
      const created = await createPgDatabase();
      databaseUrl = created.url;
      dropDb = created.drop;
    }
    config = {
      ...loadConfig({ PAYGATE_RATE_LIMIT: '1000000' }), // this file sends bursts; 429 is tested on apps with their own limit
      databaseUrl,
      dataDir: 'memory://',
      publicBaseUrl: base,
      partnerClientId: partnerId,
      partnerClientSecret: partnerSecret,
      sandbox: true,
      webhookRetrySchedule: [1],
    };
    await usePgliteTemplate(); // memory://: initdb's output from the run's tarball (D138 test fixtures made once per run)
    runtime = await openReference(config, { logger });
    http.setApp(createReferenceApp(runtime, { logger, validateResponses: true }));
  });

  afterAll(async () => {
    await closeServer(http.server);
    await closeServer(receiver.server);
    for (const s of extraServers) await closeServer(s);
    await runtime.close();
    await dropDb?.();
  });

  /** Deliver everything due (several passes: fan-out, then delivery). */
  async function drainWorker(): Promise<void> {
    for (let i = 0; i < 3; i++) await runtime.worker.tick();
  }

  // Shared state of the seed flow.
  let merchantId = '';
  let merchantCreds = { client_id: '', client_secret: '', encryption_key: '' };
  let webhookSecret = '';
  const replaySecrets: string[] = [];
  let orderId = '';
  let paymentId = '';
  const merchant = () =>
    createPaygateClient({ baseUrl: base, clientId: merchantCreds.client_id, clientSecret: merchantCreds.client_secret, maxRetries: 0 });

  it('derives the idempotent operations from the generated tables', () => {
    const ids = idempotentOperationIds();
    expect(ids.has('createOrder')).toBe(true);
    expect(ids.has('createRefund')).toBe(true);
    expect(ids.has('submitCheckoutPage')).toBe(false);
    expect(ids.has('uploadMerchantDocument')).toBe(false);
    expect(ids.size).toBe(12);
  });

  it('onboards a merchant: create (201), webhook endpoint, credentials once (201), KYC approval', async () => {
    const p = partner();
    const created = await p.merchants.create({ settlement_details: settlementDetails('IN'), company_details: companyDetails('Acme') });
    expect(created.status).toBe(201);
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    merchantId = created.data.data.id;
    expect(created.data.data.kyc_status).toBe('PENDING');
    expect(created.data.data.settlement_details.settlement_currency).toBe('INR');

    const endpoint = await p.webhooks.createEndpoint({
      url: `${receiver.url}/hooks`,
      events: ['MERCHANT_APPROVED', 'PAYMENT_SETTLED', 'PAYMENT_FAILED'],
    });
    expect(endpoint.status).toBe(201);
    if (!endpoint.ok) throw new Error(JSON.stringify(endpoint.error));
    webhookSecret = endpoint.data.data.secret;
    const listed = await p.webhooks.listEndpoints();
    expect(listed.ok && listed.data.data.results.map((e) => e.scope)).toEqual(['partner']);

    const creds = await p.merchantCredentials.create(merchantId);
    expect(creds.status).toBe(201);
    if (!creds.ok) throw new Error(JSON.stringify(creds.error));
    merchantCreds = creds.data.data;
    expect(merchantCreds.client_id).toMatch(/^ck_test_/);

    const approved = await p.sandbox.setMerchantKycStatus(merchantId, { status: 'APPROVED' });
    expect(approved.ok && approved.data.data.kyc_status).toBe('APPROVED');
    const again = await p.sandbox.setMerchantKycStatus(merchantId, { status: 'REJECTED' });
    expect(again.status).toBe(422);
    expect(!again.ok && again.error.error.code).toBe('ERR_MERCHANT_422');

    const listedMerchants = await p.merchants.list({ page_size: 1 });
    expect(listedMerchants.ok && listedMerchants.data.data.results[0]).toMatchObject({ id: merchantId, kyc_status: 'APPROVED' });

    const patched = await p.merchants.update(merchantId, { company_details: { commodity: 'Silk' } });
    expect(patched.ok && patched.data.data).toEqual({ merchant_id: merchantId, updated_fields: ['company_details'] });
  });

  it('pays a hosted order through the checkout page and the signed redirect form', async () => {
    const p = partner();
    const created = await p.orders.create(hostedOrder('SEED-1', { return_url: `${receiver.url}/return`, mop_type: 'UPI' }), {
      headers: { 'X-Merchant-ID': merchantId },
    });
    expect(created.status).toBe(200);
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const data = created.data.data as { session_id: string; order_id: string };
    orderId = data.order_id;
    expect(data.session_id).toMatch(/^session_[A-Za-z0-9_-]{43}$/);

    const page = await fetch(`${base}/checkout/${data.session_id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('SEED-1');
    expect(html).toContain('1500.00');

    const submitted = await fetch(`${base}/checkout/${data.session_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ outcome: 'success', mop_type: 'UPI' }),
    });
    expect(submitted.status).toBe(200);
    const form = await submitted.text();
    expect(form).toContain(`action="${receiver.url}/return"`);
    const fields = hiddenFields(form);
    expect(Object.keys(fields).sort()).toEqual(
      ['bank_ref_num', 'hash', 'message', 'mop_type', 'order_id', 'payment_completed_at', 'payment_id', 'status'].sort(),
    );
    expect(fields['status']).toBe('payment_successful');
    expect(fields['payment_completed_at']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00$/);
    expect(verifyCallback(fields, merchantCreds.encryption_key)).toBe(true);
    expect(verifyCallback({ ...fields, status: 'payment_failed' }, merchantCreds.encryption_key)).toBe(false);
    paymentId = fields['payment_id']!;

    const order = await merchant().orders.get(orderId);
    if (!order.ok) throw new Error(JSON.stringify(order.error));
    expect(order.data.data.status).toBe('payment_successful');
    expect(order.data.data.payments[0]).toMatchObject({
      payment_id: paymentId,
      status: 'captured',
      settlement: { status: 'ready_for_settlement' },
    });
    expect(order.data.data.is_testing).toBe(true);
  });

  it('reuses of a finished session are 401 with details.session_id', async () => {
    const p = partner();
    const created = await p.orders.create(hostedOrder('SEED-REUSE'), { headers: { 'X-Merchant-ID': merchantId } });
    const sessionId = (created.ok && (created.data.data as { session_id: string }).session_id) || '';
    const first = await p.sandbox.completeCheckoutSession(sessionId, { outcome: 'success' });
    expect(first.status).toBe(200);
    const second = await fetch(`${base}/checkout/${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=success',
    });
    expect(second.status).toBe(401);
    const body = (await second.json()) as { error: { code: string; details: Record<string, string> } };
    expect(body.error.code).toBe('ERR_AUTH_000');
    expect(body.error.details['session_id']).toBeDefined();
    const malformed = await fetch(`${base}/checkout/session_nope`);
    expect(malformed.status).toBe(401);
  });

  it('refunds idempotently (replay), completes the refund, settles and reports the settlement on the payment', async () => {
    const m = merchant();
    const key = `refund-${randomBytes(6).toString('hex')}`;
    const first = await m.refunds.create({ payment_id: paymentId, refund_amount: '500.00' }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    if (!first.ok) throw new Error(JSON.stringify(first.error));
    expect(first.data.data).toMatchObject({ payment_id: paymentId, refund_status: 'INITIATED', refund_amount: 500 });
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();

    const retry = await m.refunds.create({ payment_id: paymentId, refund_amount: '500.00' }, { headers: { 'Idempotency-Key': key } });
    expect(retry.status).toBe(200);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.ok && retry.data).toEqual(first.data);

    const mismatch = await m.refunds.create({ payment_id: paymentId, refund_amount: '1.00' }, { headers: { 'Idempotency-Key': key } });
    expect(mismatch.status).toBe(422);
    expect(!mismatch.ok && mismatch.error.error.code).toBe('ERR_IDEMPOTENCY_422');

    // A request still in flight in another process holds its key's advisory lock until its transaction ends: a retry
    // gets 409. Only PostgreSQL has a second session to hold it from (the same-process case is in the contract suite).
    const databaseUrl = config.databaseUrl;
    const extraRefunds: string[] = [];
    if (databaseUrl) {
      const body = { payment_id: paymentId, refund_amount: '2.00' };
      const inFlightKey = `inflight-${randomBytes(6).toString('hex')}`;
      const holder = new pg.Client({ connectionString: databaseUrl });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1::bigint)', [idempotencyLockId(`merchant:${merchantId}`, inFlightKey)]);
        const inFlight = await m.refunds.create(body, { headers: { 'Idempotency-Key': inFlightKey } });
        expect(inFlight.status).toBe(409);
        expect(!inFlight.ok && inFlight.error.error.code).toBe('ERR_IDEMPOTENCY_409');
      } finally {
        await holder.end();
      }
      const afterwards = await m.refunds.create(body, { headers: { 'Idempotency-Key': inFlightKey } });
      expect(afterwards.status).toBe(200);
      if (afterwards.ok) extraRefunds.push(afterwards.data.data.refund_id);
      // a partner retrying the merchant's request (X-Merchant-ID) with the same key replays it: keys belong to the merchant
      const byPartner = await createPaygateClient({
        baseUrl: base,
        clientId: partnerId,
        clientSecret: partnerSecret,
        maxRetries: 0,
        merchantId,
      }).refunds.create(body, { headers: { 'Idempotency-Key': inFlightKey } });
      expect(byPartner.response.headers.get('idempotent-replayed')).toBe('true');
      expect(byPartner.ok && afterwards.ok && byPartner.data).toEqual(afterwards.ok && afterwards.data);
    }

    const badKey = await m.refunds.create(
      { payment_id: paymentId, refund_amount: '1.00' },
      { headers: { 'Idempotency-Key': 'has space' } },
    );
    expect(badKey.status).toBe(400);

    const tooMuch = await m.refunds.create({ payment_id: paymentId, refund_amount: '1000.01' });
    expect(tooMuch.status).toBe(422);
    expect(!tooMuch.ok && tooMuch.error.error.details).toHaveProperty('refund_amount');

    const refundId = first.data.data.refund_id;
    const done = await m.sandbox.completeRefund(refundId, { outcome: 'processed' });
    expect(done.ok && done.data.data.refund_status).toBe('PROCESSED');
    const read = await m.refunds.get(refundId);
    expect(read.ok && read.data.data.refunded_at).toMatch(/Z$/);
    const list = await m.refunds.list({ payment_id: paymentId });
    expect(list.ok && list.data.results.map((r) => r.refund_id).sort()).toEqual([refundId, ...extraRefunds].sort());
    expect(list.ok && list.data).not.toHaveProperty('success');

    const run = await partner().sandbox.runSettlements({});
    if (!run.ok) throw new Error(JSON.stringify(run.error));
    expect(run.data.data.settlements).toHaveLength(1);
    const settlement = run.data.data.settlements[0]!;
    expect(settlement.transactions.map((t) => t.transaction_id)).toContain(paymentId);

    const payment = await m.payments.get(paymentId);
    if (!payment.ok) throw new Error(JSON.stringify(payment.error));
    expect(payment.data.data.settlement).toMatchObject({ settlement_id: settlement.settlement_id, utr_number: settlement.utr_number });
    expect(payment.data.data.refund.map((r) => r.refund_status)).toEqual(['PROCESSED', ...extraRefunds.map(() => 'INITIATED')]);

    const readSettlement = await m.settlements.get(settlement.settlement_id);
    expect(readSettlement.ok && readSettlement.data.data.settlement_id).toBe(settlement.settlement_id);
    const settlements = await m.settlements.list({});
    expect(settlements.ok && settlements.data.data.count).toBe(1);
  });

  it('delivers MERCHANT_APPROVED and PAYMENT_SETTLED, verifiable with the endpoint secret', async () => {
    await drainWorker();
    const wh = new Webhook(webhookSecret);
    const events = receiver.deliveries
      .filter((d) => d.path === '/hooks')
      .map((d) => wh.verify<{ event_type: string; data: Record<string, unknown> }>(d.raw, d.headers));
    const types = events.map((e) => e.event_type);
    expect(types).toContain('MERCHANT_APPROVED');
    expect(types).toContain('PAYMENT_SETTLED');
    expect(events.find((e) => e.event_type === 'MERCHANT_APPROVED')!.data['merchant_id']).toBe(merchantId);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(receiver.deliveries[0]!.raw, receiver.deliveries[0]!.headers),
    ).toThrow();
  });

  it('server-to-server: UPI intent completed in the sandbox, and a success@paygate collection completed by the worker', async () => {
    const m = merchant();
    const intent = await m.orders.create(
      hostedOrder('S2S-INTENT', { collection_mode: 's2s', mop_type: 'UPI', upi_flow_type: 'intent', upi_app_name: 'phonepe' }),
    );
    if (!intent.ok) throw new Error(JSON.stringify(intent.error));
    const intentData = intent.data.data as { intent_uri: string; order_id: string };
    expect(intentData.intent_uri).toMatch(/^phonepe:\/\/pay\?/);
    const completed = await m.sandbox.completeOrderPayment(intentData.order_id, { outcome: 'success' });
    expect(completed.ok && completed.data.data.status).toBe('payment_successful');

    const collect = await m.orders.create(
      hostedOrder('S2S-COLLECT', { collection_mode: 's2s', mop_type: 'UPI', upi_flow_type: 'collection', vpa: 'success@paygate' }),
    );
    if (!collect.ok) throw new Error(JSON.stringify(collect.error));
    const collectData = collect.data.data as { order_id: string; message: string };
    expect(collectData.message).toContain('success@paygate');
    // merchant credentials move their own sandbox clock (D38 per-merchant sandbox clocks)
    const advanced = await m.sandbox.advanceClock({ seconds: 10 });
    expect(advanced.ok && advanced.data.data).toMatchObject({ merchant_id: merchantId });
    expect(advanced.ok && advanced.data.data.offset_seconds).toBeGreaterThanOrEqual(10);
    await drainWorker();
    const order = await m.orders.get(collectData.order_id);
    expect(order.ok && order.data.data.status).toBe('payment_successful');
  });

  it('a failed hosted payment: exact callback fields with hash, order payment_failed, PAYMENT_FAILED webhook', async () => {
    const p = partner();
    const created = await p.orders.create(hostedOrder('FAIL-1', { return_url: `${receiver.url}/return` }), {
      headers: { 'X-Merchant-ID': merchantId },
    });
    const data = (created.ok && (created.data.data as { session_id: string; order_id: string })) || { session_id: '', order_id: '' };
    const result = await p.sandbox.completeCheckoutSession(data.session_id, { outcome: 'failure', mop_type: 'CREDIT_CARD' });
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const redirect = result.data.data.redirect;
    expect(redirect.url).toBe(`${receiver.url}/return`);
    expect(redirect.method).toBe('POST');
    expect(Object.keys(redirect.fields).sort()).toEqual(
      ['bank_ref_num', 'hash', 'message', 'mop_type', 'order_id', 'payment_completed_at', 'payment_id', 'status'].sort(),
    );
    expect(redirect.fields.status).toBe('payment_failed');
    expect(verifyCallback(redirect.fields, merchantCreds.encryption_key)).toBe(true);
    const actingForMerchant = createPaygateClient({
      baseUrl: base,
      clientId: partnerId,
      clientSecret: partnerSecret,
      merchantId,
      maxRetries: 0,
    });
    const order = await actingForMerchant.orders.get(data.order_id);
    expect(order.ok && order.data.data.status).toBe('payment_failed');

    await drainWorker();
    const wh = new Webhook(webhookSecret);
    const failed = receiver.deliveries
      .filter((d) => d.path === '/hooks')
      .map((d) => wh.verify<{ event_type: string; data: { order_id?: string } }>(d.raw, d.headers))
      .find((e) => e.event_type === 'PAYMENT_FAILED');
    expect(failed?.data.order_id).toBe(data.order_id);
  });

  it('cancel on the page shows the result page when the order has no return_url', async () => {
    const m = merchant();
    const created = await m.orders.create(hostedOrder('CANCEL-1'));
    const data = (created.ok && (created.data.data as { session_id: string; order_id: string })) || { session_id: '', order_id: '' };
    const res = await fetch(`${base}/checkout/${data.session_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=cancel',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('data-status="payment_cancelled"');
    const order = await m.orders.get(data.order_id);
    expect(order.ok && order.data.data.status).toBe('payment_cancelled');
  });

  it('sandbox clocks are per merchant: a merchant moves its own, a partner names one; other merchants do not move (D38)', async () => {
    const p = partner();
    // a second merchant of the same partner, with a session open
    const other = await p.merchants.create({ settlement_details: settlementDetails('IN'), company_details: companyDetails('Other Clock') });
    if (!other.ok) throw new Error(JSON.stringify(other.error));
    const otherId = other.data.data.id;
    await p.sandbox.setMerchantKycStatus(otherId, { status: 'APPROVED' });
    const otherCreds = await p.merchantCredentials.create(otherId);
    if (!otherCreds.ok) throw new Error(JSON.stringify(otherCreds.error));
    const otherClient = createPaygateClient({
      baseUrl: base,
      clientId: otherCreds.data.data.client_id,
      clientSecret: otherCreds.data.data.client_secret,
      maxRetries: 0,
    });
    const otherOrder = await otherClient.orders.create(hostedOrder('CLOCK-OTHER'));
    const otherSession = (otherOrder.ok && (otherOrder.data.data as { session_id: string }).session_id) || '';

    const mine = await merchant().sandbox.getClock();
    expect(mine.ok && mine.data.data.merchant_id).toBe(merchantId);
    const before = (mine.ok && mine.data.data.offset_seconds) || 0;
    // merchant credentials: its own clock; naming another merchant is 404 (its clock is not theirs to move)
    const moved = await merchant().sandbox.advanceClock({ seconds: 30 * 60 });
    expect(moved.ok && moved.data.data).toMatchObject({ merchant_id: merchantId, offset_seconds: before + 1800 });
    const foreign = await merchant().sandbox.advanceClock({ seconds: 60, merchant_id: otherId });
    expect(foreign.status).toBe(404);
    expect(!foreign.ok && foreign.error.error).toMatchObject({ code: 'ERR_MERCHANT_404', details: { merchant_id: 'no such merchant' } });
    // partner credentials: must name the merchant (body, query or X-Merchant-ID)
    const unnamed = await p.sandbox.advanceClock({ seconds: 60 });
    expect(unnamed.status).toBe(400);
    expect(!unnamed.ok && unnamed.error.error.details).toHaveProperty('merchant_id');
    const unnamedRead = await p.sandbox.getClock();
    expect(unnamedRead.status).toBe(400);
    const missing = await p.sandbox.getClock({ merchant_id: '99999999999' });
    expect(missing.status).toBe(404);
    const otherClock = await p.sandbox.getClock({ merchant_id: otherId });
    expect(otherClock.ok && otherClock.data.data).toMatchObject({ merchant_id: otherId, offset_seconds: 0 });
    // X-Merchant-ID names the merchant too (honoured on every merchant-scoped call, declared on order creation only: D8)
    const viaHeader = await fetch(`${base}/sandbox/clock`, {
      headers: { 'X-Client-ID': partnerId, 'X-Client-Secret': partnerSecret, 'X-Merchant-ID': merchantId },
    });
    expect(viaHeader.status).toBe(200);
    expect(((await viaHeader.json()) as { data: { offset_seconds: number } }).data.offset_seconds).toBe(before + 1800);
    // the other merchant's session is untouched by the first merchant's half hour
    await drainWorker();
    expect((await fetch(`${base}/checkout/${otherSession}`)).status).toBe(200);
  });

  it('expires a session after 15 sandbox minutes', async () => {
    const m = merchant();
    const created = await m.orders.create(hostedOrder('EXPIRE-1'));
    const data = (created.ok && (created.data.data as { session_id: string; order_id: string })) || { session_id: '', order_id: '' };
    expect((await fetch(`${base}/checkout/${data.session_id}`)).status).toBe(200);
    // a partner moves one of its merchants' clocks, naming it (D38 per-merchant sandbox clocks)
    const advanced = await partner().sandbox.advanceClock({ seconds: 16 * 60, merchant_id: merchantId });
    expect(advanced.status).toBe(200);
    const page = await fetch(`${base}/checkout/${data.session_id}`);
    expect(page.status).toBe(401);
    const body = (await page.json()) as { error: { code: string; details: Record<string, string> } };
    expect(body.error).toMatchObject({ code: 'ERR_AUTH_000', message: 'Missing credentials' });
    expect(body.error.details['session_id']).toMatch(/expired/);
    const order = await m.orders.get(data.order_id);
    expect(order.ok && order.data.data.status).toBe('payment_cancelled');
  });

  it('paginates with absolute links that keep every filter', async () => {
    const m = merchant();
    const page1 = await m.payments.list({ page_size: 1, status: 'CAPTURED', currency: 'INR' });
    if (!page1.ok) throw new Error(JSON.stringify(page1.error));
    expect(page1.data.data.count).toBeGreaterThanOrEqual(2);
    const next = new URL(page1.data.data.next!);
    expect(`${next.protocol}//${next.host}${next.pathname}`).toBe(`${base}/pg/payments/`);
    // the links carry an opaque keyset cursor beside page and page_size (D108 lists page by keyset over tenant indexes)
    expect(Object.fromEntries(next.searchParams)).toEqual({
      status: 'CAPTURED',
      currency: 'INR',
      page: '2',
      page_size: '1',
      cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });
    expect(page1.data.data.previous).toBeNull();
    const page2 = await m.payments.list({
      page: 2,
      page_size: 1,
      status: 'CAPTURED',
      currency: 'INR',
      cursor: next.searchParams.get('cursor')!,
    });
    if (!page2.ok) throw new Error(JSON.stringify(page2.error));
    expect(page2.data.data.results[0]?.id).not.toBe(page1.data.data.results[0]?.id);
    const back = await m.payments.list({
      page: 1,
      page_size: 1,
      status: 'CAPTURED',
      currency: 'INR',
      cursor: new URL(page2.data.data.previous!).searchParams.get('cursor')!,
    });
    expect(back.ok && back.data.data.results.map((r) => r.id)).toEqual(page1.data.data.results.map((r) => r.id));
    const offsetPage2 = await m.payments.list({ page: 2, page_size: 1, status: 'CAPTURED', currency: 'INR' });
    expect(offsetPage2.ok && new URL(offsetPage2.data.data.previous!).searchParams.get('page')).toBe('1');
    const tooDeep = await m.payments.list({ page: 1001, page_size: 1 });
    expect(!tooDeep.ok && tooDeep.error.error).toMatchObject({ code: 'ERR_VALIDATION_400', details: { page: expect.any(String) } });
  });

  // The order rules the schema states are enforced at the edge by the generated request validator (the service keeps
  // only the business rules it cannot say): each bad body is a 400 naming its field.
  const edgeRules: [string, Record<string, unknown>, string][] = [
    ['s2s without upi_flow_type', { collection_mode: 's2s' }, 'upi_flow_type'],
    ['a collection without vpa', { collection_mode: 's2s', upi_flow_type: 'collection' }, 'vpa'],
    ['a malformed vpa', { collection_mode: 's2s', upi_flow_type: 'collection', vpa: 'bad' }, 'vpa'],
    ['s2s with a card', { collection_mode: 's2s', upi_flow_type: 'intent', mop_type: 'CREDIT_CARD' }, 'mop_type'],
    ['a javascript: return_url', { return_url: 'javascript:alert(1)' }, 'return_url'],
    // B21: http:// only to the merchant's own machine
    ['an http:// return_url to a public host', { return_url: 'http://shop.example/return' }, 'return_url'],
    ['an http:// return_url to a look-alike of localhost', { return_url: 'http://localhost.shop.example/return' }, 'return_url'],
    // D44: format uri is RFC 3986 in full (the URL lands in an HTML form the gateway renders)
    ['a return_url with a double quote', { return_url: 'https://shop.example/return"x' }, 'return_url'],
    ['a return_url with angle brackets', { return_url: 'https://shop.example/<script>' }, 'return_url'],
    ['an amount with one decimal', { amount: '10.5' }, 'amount'],
    ['a lower-case currency', { currency: 'inr' }, 'currency'],
    ['an unknown upi_app_name', { upi_app_name: 'mystery' }, 'upi_app_name'],
    ['an impossible invoice date', { invoice: { number: 'INV-9', date: '2026-02-30' } }, 'invoice.date'],
    [
      'a lone UTF-16 surrogate in a string',
      { buyer: { name: 'Priya \ud800', email: 'priya@example.com', phone: '+919876543210' } },
      'buyer.name',
    ],
    [
      'an impossible buyer dob',
      { buyer: { name: 'Priya Sharma', email: 'priya@example.com', phone: '+919876543210', dob: '1990-13-01' } },
      'buyer.dob',
    ],
    // D89: formats the seed types only as "string"
    [
      'a lower-case PAN',
      { buyer: { name: 'Priya Sharma', email: 'priya@example.com', phone: '+919876543210', pan_number: 'abcde1234f' } },
      'buyer.pan_number',
    ],
    ['a phone with letters', { buyer: { name: 'Priya Sharma', email: 'priya@example.com', phone: '+91-CALL-ME' } }, 'buyer.phone'],
    [
      'a one-character postal code',
      {
        buyer: {
          name: 'Priya Sharma',
          email: 'priya@example.com',
          phone: '+919876543210',
          address: { line_1: 'Flat 4B', city: 'Mumbai', state: 'MH', postal_code: '1' },
        },
      },
      'buyer.address.postal_code',
    ],
    ['a one-digit HS code', { product: { name: 'Silk saree', description: 'Hand-woven', hs_code: '1' } }, 'product.hs_code'],
    ['a reference_id with a space', { reference_id: 'ORDER 1' }, 'reference_id'],
  ];
  it.each(['https://shop.example/return', 'http://localhost:3000/return', 'http://127.0.0.1/return', 'http://[::1]:8080/return?x=1'])(
    'order create at the edge: return_url %s is accepted (B21)',
    async (returnUrl) => {
      const res = await merchant().orders.create(hostedOrder(`EDGE-${randomBytes(4).toString('hex')}`, { return_url: returnUrl }));
      expect(res.status, JSON.stringify(res.ok ? res.data : res.error)).toBe(200);
    },
  );
  for (const [what, extra, field] of edgeRules) {
    it(`order create at the edge: ${what} is 400 with details.${field}`, async () => {
      const res = await merchant().orders.create(hostedOrder(`EDGE-${randomBytes(4).toString('hex')}`, extra));
      expect(res.status).toBe(400);
      expect(!res.ok && res.error.error.code).toBe('ERR_VALIDATION_400');
      expect(
        !res.ok &&
          Object.keys(res.error.error.details ?? {}).some((k) => k === field || k.startsWith(`${field}.`) || k.endsWith(`.${field}`)),
      ).toBe(true);
    });
  }

  it('API answers are never cached or sniffed: Cache-Control no-store and nosniff, errors included', async () => {
    const read = await merchant().orders.get(orderId);
    expect(read.response.headers.get('cache-control')).toBe('no-store');
    expect(read.response.headers.get('x-content-type-options')).toBe('nosniff');
    const denied = await fetch(`${base}/pg/orders/${orderId}`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('cache-control')).toBe('no-store');
    expect(denied.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('date filters far in the future are read as "no bound", never a 5xx', async () => {
    const m = merchant();
    const payments = await m.payments.list({ to_created_date: '2999-12-31' });
    expect(payments.status).toBe(200);
    const refunds = await m.refunds.list({ to_date: '9999-12-31' });
    expect(refunds.status).toBe(200);
    const settlements = await m.settlements.list({ from_date: '2300-01-01' });
    expect(settlements.status).toBe(200);
    expect(settlements.ok && settlements.data.data.count).toBe(0);
    const reversed = await m.settlements.list({ from_date: '2300-01-02', to_date: '2300-01-01' });
    expect(reversed.status).toBe(400);
    expect(!reversed.ok && Object.keys(reversed.error.error.details ?? {})).toEqual(['to_date']);
  });

  // Merchant bodies are validated at the edge only (the schema says every field): each bad body is a 400 naming its field.
  const merchantEdgeRules: [string, () => Promise<{ status: number; ok: boolean; error?: unknown }>, string][] = [
    [
      'a missing settlement field',
      () => {
        const { bank_name: _omitted, ...partial } = settlementDetails('IN');
        return partner().merchants.create({
          settlement_details: partial as ReturnType<typeof settlementDetails>,
          company_details: companyDetails('Edge'),
        });
      },
      'settlement_details.bank_name',
    ],
    [
      'an unknown company field',
      () =>
        partner().merchants.create({
          settlement_details: settlementDetails('IN'),
          company_details: { ...companyDetails('Edge'), mascot: 'owl' } as ReturnType<typeof companyDetails>,
        }),
      'company_details.mascot',
    ],
    [
      'an unknown business_mode on PATCH',
      () => partner().merchants.update(merchantId, { company_details: { business_mode: 'B2X' as 'B2B' } }),
      'company_details.business_mode',
    ],
    ['an empty PATCH group', () => partner().merchants.update(merchantId, { company_details: {} }), 'company_details'],
    [
      'an unknown webhook event type',
      () => partner().webhooks.createEndpoint({ url: 'https://hooks.example/x', events: ['NOPE' as 'PAYMENT_FAILED'] }),
      'events[0]',
    ],
  ];
  for (const [what, send, field] of merchantEdgeRules) {
    it(`merchant bodies at the edge: ${what} is 400 with details.${field}`, async () => {
      const res = await send();
      expect(res.status).toBe(400);
      const details = (res.error as { error: { code: string; details?: Record<string, string> } }).error;
      expect(details.code).toBe('ERR_VALIDATION_400');
      expect(Object.keys(details.details ?? {})).toContain(field);
    });
  }

  it('rejects: reference_id reuse 409, other tenant 404, missing credentials 401, merchant credentials on the partner API 403', async () => {
    const m = merchant();
    const dup = await m.orders.create(hostedOrder('SEED-1'));
    expect(dup.status).toBe(409);
    expect(!dup.ok && dup.error.error.code).toBe('ERR_ORDER_409');

    const p = partner();
    const other = await p.merchants.create({ settlement_details: settlementDetails('US'), company_details: companyDetails('Other') });
    const otherId = (other.ok && other.data.data.id) || '';
    const otherCreds = await p.merchantCredentials.create(otherId);
    if (!otherCreds.ok) throw new Error('credentials');
    const stranger = createPaygateClient({
      baseUrl: base,
      clientId: otherCreds.data.data.client_id,
      clientSecret: otherCreds.data.data.client_secret,
      maxRetries: 0,
    });
    const notYours = await stranger.orders.get(orderId);
    expect(notYours.status).toBe(404);
    expect(!notYours.ok && notYours.error.error.code).toBe('ERR_ORDER_404');
    expect((await stranger.payments.get(paymentId)).status).toBe(404);
    const strangerList = await stranger.payments.list({ merchant_id: merchantId });
    expect(strangerList.ok && strangerList.data.data.count).toBe(0);
    const notApproved = await stranger.orders.create(hostedOrder('OTHER-1'));
    expect(!notApproved.ok && notApproved.error.error.code).toBe('ERR_MERCHANT_422');

    const anonymous = await fetch(`${base}/pg/orders/${orderId}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ success: false, error: { code: 'ERR_AUTH_000', message: 'Missing credentials' } });
    const wrong = createPaygateClient({ baseUrl: base, clientId: partnerId, clientSecret: 'wrong-secret-wrong-secret', maxRetries: 0 });
    expect((await wrong.merchants.list()).status).toBe(401);

    const forbidden = await m.merchants.list();
    expect(forbidden.status).toBe(403);
    expect(!forbidden.ok && forbidden.error.error.code).toBe('ERR_AUTH_403');
    expect((await m.merchantCredentials.create(merchantId)).status).toBe(403);

    const noMerchant = await p.orders.create(hostedOrder('NO-MERCHANT'));
    expect(noMerchant.status).toBe(400);
    // D41: a header is named in lower case in details, as the request validator names it
    expect(!noMerchant.ok && noMerchant.error.error).toEqual({
      code: 'ERR_VALIDATION_400',
      message: 'Request validation failed',
      details: { 'x-merchant-id': 'is required with partner credentials' },
    });
  });

  it('uploads a PDF (magic bytes) served only to its owner; 415 for other types and 413 for too-large files', async () => {
    const p = partner();
    const ok = await p.merchants.uploadDocument(merchantId, {
      document_type: 'INVOICE',
      file: new Blob([PDF], { type: 'application/pdf' }),
    });
    expect(ok.status).toBe(200);
    const merchantRead = await p.merchants.get(merchantId);
    const fileUrl = (merchantRead.ok && merchantRead.data.data.invoice_file) || '';
    expect(fileUrl).toMatch(new RegExp(`^${base}/files/doc_[A-Za-z0-9_-]{32}$`));
    const docId = fileUrl.split('/').pop()!;
    const ownerHeaders = { 'X-Client-ID': merchantCreds.client_id, 'X-Client-Secret': merchantCreds.client_secret };
    const asOwner = await fetch(fileUrl, { headers: ownerHeaders });
    expect(asOwner.status).toBe(200);
    expect(asOwner.headers.get('content-type')).toBe('application/pdf');
    expect(new Uint8Array(await asOwner.arrayBuffer())).toEqual(PDF);
    // one URL only: the old /documents/ alias is gone
    expect((await fetch(`${base}/documents/${docId}`, { headers: ownerHeaders })).status).toBe(404);
    const asPartner = await fetch(`${base}/files/${docId}`, { headers: { 'X-Client-ID': partnerId, 'X-Client-Secret': partnerSecret } });
    expect(asPartner.status).toBe(200);
    // D45: an attachment, never cached, sandboxed if a browser ever renders it
    expect(asOwner.headers.get('content-disposition')).toBe('attachment');
    expect(asOwner.headers.get('cache-control')).toBe('private, no-store');
    expect(asOwner.headers.get('content-security-policy')).toContain('sandbox');
    expect((await fetch(`${base}/files/${docId}`)).status).toBe(401);

    const orderDoc = await merchant().orders.uploadDocument(orderId, {
      document_type: 'air_waybill',
      identifier: 'AWB-1',
      file: new Blob([PDF], { type: 'application/pdf' }),
    });
    expect(orderDoc.ok && orderDoc.data.data.air_waybills).toEqual([{ number: 'AWB-1', file: expect.stringMatching(/^http/) }]);

    const text = await p.merchants.uploadDocument(merchantId, {
      document_type: 'BANK_PROOF',
      file: new Blob(['hello'], { type: 'text/plain' }),
    });
    expect(text.status).toBe(415);
    expect(!text.ok && text.error.error.code).toBe('ERR_REQUEST_415');
    const disguised = await p.merchants.uploadDocument(merchantId, {
      document_type: 'BANK_PROOF',
      file: new Blob(['hello'], { type: 'application/pdf' }),
    });
    expect(disguised.status).toBe(415);

    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(PDF);
    const tooLarge = await p.merchants.uploadDocument(merchantId, {
      document_type: 'BANK_PROOF',
      file: new Blob([big], { type: 'application/pdf' }),
    });
    expect(tooLarge.status).toBe(413);
    // D42: a 413 names the part that is too large
    expect(!tooLarge.ok && tooLarge.error.error).toMatchObject({
      code: 'ERR_REQUEST_413',
      details: { file: `must be at most ${5 * 1024 * 1024} bytes` },
    });
  });

  it.each([
    [
      'a merchant document',
      'PATCH',
      () => `/partners/merchants/${merchantId}/documents/`,
      'partner',
      { document_type: 'INVOICE', file: 'hello' },
    ],
    [
      'a merchant document (empty text)',
      'PATCH',
      () => `/partners/merchants/${merchantId}/documents/`,
      'partner',
      { document_type: 'INVOICE', file: '' },
    ],
    [
      'an order document',
      'POST',
      () => `/pg/orders/${orderId}/documents/`,
      'merchant',
      { document_type: 'invoice', identifier: 'INV-1', file: 'hello' },
    ],
  ] as const)('%s whose file is a text field, not a file part: 400 naming file (never 500)', async (_label, method, path, who, fields) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const credentials =
      who === 'partner' ? { id: partnerId, secret: partnerSecret } : { id: merchantCreds.client_id, secret: merchantCreds.client_secret };
    const res = await fetch(`${base}${path()}`, {
      method,
      body: form,
      headers: { 'X-Client-ID': credentials.id, 'X-Client-Secret': credentials.secret },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      success: false,
      error: {
        code: 'ERR_VALIDATION_400',
        message: 'Request validation failed',
        details: { file: 'must be a file part (with a filename), not a text field' },
      },
    });
  });

  it('corrects an order (nested envelope) and serves the SDK, health and 404 for unknown routes', async () => {
    const m = merchant();
    const patched = await m.orders.update(orderId, {
      buyer: { pan_number: 'ABCDE1234F' },
      invoice: { number: 'INV-9', date: '2026-11-21' },
    });
    if (!patched.ok) throw new Error(JSON.stringify(patched.error));
    expect(patched.data.data).toMatchObject({
      success: true,
      data: { order_id: orderId, buyer: { pan_number: 'ABCDE1234F' }, invoice: { number: 'INV-9' } },
    });

    const sdk = await fetch(`${base}/sdk/checkout.js`);
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('content-type')).toMatch(/^application\/javascript/);
    const etag = sdk.headers.get('etag');
    expect(etag).toMatch(/^"sha256-/);
    // fetch() turns a conditional request into `Cache-Control: no-cache`; use node:http for the revalidation
    const revalidated = await new Promise<number>((resolve, reject) => {
      const r = request(`${base}/sdk/checkout.js`, { headers: { 'If-None-Match': etag! } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
      r.end();
    });
    expect(revalidated).toBe(304);

    // liveness checks no dependency; readiness checks the database (D102 liveness and readiness health routes)
    const health = await fetch(`${base}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
    // no automatic ETag on API answers (D85): they are no-store, and no operation but the SDK declares a 304
    expect(health.headers.get('etag')).toBeNull();
    // the gateway's own address leads a browser to the docs, an API client to the same links as JSON
    const home = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await home.text()).toContain('<a href="/docs/" data-testid="home-/docs/">API reference</a>');
    const homeJson = await fetch(`${base}/`, { headers: { accept: 'application/json' } });
    expect(await homeJson.json()).toMatchObject({
      name: 'Paygate',
      links: expect.arrayContaining([expect.objectContaining({ href: '/docs/' })]),
    });
    const unknown = await fetch(`${base}/nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('ERR_REQUEST_404');
  });

  it('logs one line per request with a request id and never a secret', async () => {
    const res = await fetch(`${base}/partners/merchants/`, {
      headers: { 'X-Client-ID': partnerId, 'X-Client-Secret': partnerSecret, 'X-Request-Id': 'req-abc-123' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-abc-123');
    const line = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['req_id'] === 'req-abc-123');
    expect(line).toMatchObject({ method: 'GET', route: '/partners/merchants/', status: 200, msg: 'request' });
    const all = logLines.join('\n');
    expect(all).not.toContain(partnerSecret);
    expect(all).not.toContain(merchantCreds.client_secret);
    expect(all).not.toContain(merchantCreds.encryption_key);
  });

  it('rate limits per credential with 429, Retry-After and RateLimit headers', async () => {
    const limited = await listenSwappable();
    extraServers.push(limited.server);
    limited.setApp(createReferenceApp(runtime, { logger, validateResponses: true, rateLimit: { limit: 3, windowSeconds: 60 } }));
    const client = createPaygateClient({
      baseUrl: `http://127.0.0.1:${limited.port}`,
      clientId: merchantCreds.client_id,
      clientSecret: merchantCreds.client_secret,
      maxRetries: 0,
    });
    // the shared counter may already hold this window's requests from earlier tests: go until refused
    let last = await client.orders.get(orderId);
    for (let i = 0; i < 10 && last.status !== 429; i++) last = await client.orders.get(orderId);
    expect(last.status).toBe(429);
    expect(!last.ok && last.error.error.code).toBe('ERR_RATE_429');
    expect(Number(last.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.response.headers.get('ratelimit-limit')).toBe('3');
    expect(last.response.headers.get('ratelimit-remaining')).toBe('0');
    expect(last.response.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });

  it.each([
    ['without PAYGATE_TRUST_PROXY every shopper behind the proxy is the proxy: one budget', undefined, [200, 429]],
    ['with PAYGATE_TRUST_PROXY=loopback each X-Forwarded-For client has its own budget', 'loopback', [200, 200]],
  ] as const)('%s', async (_name, trustProxy, expected) => {
    const proxied = await listenSwappable();
    extraServers.push(proxied.server);
    proxied.setApp(createReferenceApp(runtime, { logger, rateLimit: { limit: 1, windowSeconds: 3600 }, trustProxy }));
    const statuses = [];
    for (const shopper of ['203.0.113.7', '198.51.100.23']) {
      const res = await fetch(`http://127.0.0.1:${proxied.port}/sdk/checkout.js`, { headers: { 'X-Forwarded-For': shopper } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual(expected);
  });

  it('a rate-limited checkout page is a page for a browser and the error envelope for an API client', async () => {
    const limited = await listenSwappable();
    extraServers.push(limited.server);
    limited.setApp(createReferenceApp(runtime, { logger, rateLimit: { limit: 1, windowSeconds: 3600 }, trustProxy: 'loopback' }));
    const page = (accept: string) =>
      fetch(`http://127.0.0.1:${limited.port}/checkout/session_${'B'.repeat(43)}`, {
        headers: { Accept: accept, 'X-Forwarded-For': '192.0.2.44' },
      });
    await page('text/html'); // the one allowed request (an unknown session: 401)
    const html = await page('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect(html.status).toBe(429);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(html.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await html.text()).toMatch(/data-status="rate_limited"[\s\S]*Please wait \d+ seconds?/);
    const json = await page('application/json');
    expect(json.status).toBe(429);
    expect(await json.json()).toMatchObject({ success: false, error: { code: 'ERR_RATE_429' } });
  });

  it('production mode hides /sandbox/* (404) and the simulate-failure button', async () => {
    const prod = await listenSwappable();
    extraServers.push(prod.server);
    const prodRuntime: ReferenceRuntime = { ...runtime, config: { ...runtime.config, sandbox: false } };
    prod.setApp(createReferenceApp(prodRuntime, { logger, validateResponses: true }));
    const client = createPaygateClient({
      baseUrl: `http://127.0.0.1:${prod.port}`,
      clientId: partnerId,
      clientSecret: partnerSecret,
      maxRetries: 0,
    });
    const advanced = await client.sandbox.advanceClock({ seconds: 1 });
    expect(advanced.status).toBe(404);
    expect(!advanced.ok && advanced.error.error.code).toBe('ERR_REQUEST_404');
    const kyc = await fetch(`http://127.0.0.1:${prod.port}/sandbox/merchants/${merchantId}/kyc`, { method: 'POST' });
    expect(kyc.status).toBe(404);
    expect((await client.merchants.list()).status).toBe(200);
    const created = await client.orders.create(hostedOrder('PROD-1'), { headers: { 'X-Merchant-ID': merchantId } });
    const sessionId = (created.ok && (created.data.data as { session_id: string }).session_id) || '';
    const page = await (await fetch(`http://127.0.0.1:${prod.port}/checkout/${sessionId}`)).text();
    expect(page).toContain('data-testid="pay"');
    expect(page).not.toContain('data-testid="fail"');
    expect(page).not.toContain('sandbox-banner');
  });

  it('replays idempotent requests byte for byte (secrets shown once with Cache-Control: no-store, a 4xx), from sealed storage', async () => {
    const headers = { 'X-Client-ID': partnerId, 'X-Client-Secret': partnerSecret, 'Content-Type': 'application/json' };
    const post = (path: string, key: string, body: unknown, extra: Record<string, string> = {}) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, ...extra, 'Idempotency-Key': key }, body: JSON.stringify(body) });
    const twice = async (path: string, body: unknown, extra: Record<string, string> = {}) => {
      const key = `bytes-${randomBytes(6).toString('hex')}`;
      const first = await post(path, key, body, extra);
      const firstText = await first.text();
      const replay = await post(path, key, body, extra);
      const replayText = await replay.text();
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.status).toBe(first.status);
      expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(replayText).toBe(firstText); // raw text, not parsed-and-compared
      return { first, replay, text: firstText };
    };

    const other = await partner().merchants.create({
      settlement_details: settlementDetails('GB'),
      company_details: companyDetails('Replay'),
    });
    if (!other.ok) throw new Error(JSON.stringify(other.error));
    const otherId = other.data.data.id;

    const creds = await twice(`/partners/merchants/${otherId}/credentials`, {});
    expect(creds.first.status).toBe(201);
    const issued = (JSON.parse(creds.text) as { data: { client_secret: string; encryption_key: string } }).data;
    expect(issued.client_secret).toMatch(/^cs_/);
    expect(issued.encryption_key).toMatch(/^ek_/);
    expect(creds.replay.headers.get('cache-control')).toBe('no-store'); // the handler's headers are replayed too

    const endpoint = await twice(
      '/webhooks/endpoints',
      { url: 'https://hooks.example/replay', events: ['PAYMENT_FAILED'] },
      { 'X-Merchant-ID': otherId },
    );
    expect(endpoint.first.status).toBe(201);
    const whsec = (JSON.parse(endpoint.text) as { data: { secret: string } }).data.secret;
    expect(whsec).toMatch(/^whsec_/);
    expect(endpoint.replay.headers.get('cache-control')).toBe('no-store');

    await partner().sandbox.setMerchantKycStatus(otherId, { status: 'APPROVED' });
    const order = await twice('/pg/orders/', hostedOrder(`REPLAY-${randomBytes(4).toString('hex')}`), { 'X-Merchant-ID': otherId });
    expect(order.first.status).toBe(200);

    const missing = await twice('/partners/merchants/99999999999/credentials', {});
    expect(missing.first.status).toBe(404);

    // stored sealed: none of the secrets shown once is readable in idempotency_keys
    const { rows } = await runtime.db.query<{ row: string }>(`SELECT to_jsonb(k)::text AS row FROM idempotency_keys k`);
    const dump = rows.map((r) => r.row).join('\n');
    for (const secret of [issued.client_secret, issued.encryption_key, whsec]) expect(dump).not.toContain(secret);
    replaySecrets.push(issued.client_secret, issued.encryption_key, whsec);
  });

  it('listAll reads a list past the page-number window by following the cursor of each next link (D108)', async () => {
    const p = partner();
    const created = await p.merchants.create({ settlement_details: settlementDetails('IN'), company_details: companyDetails('Deep') });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const deep = created.data.data.id;
    const { rows } = await runtime.db.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [deep]);
    await seedHistory(runtime.db, { merchantId: deep, partnerId: rows[0]!.partner_id, payments: 1200, idPrefix: '7' });
    const byNumber = await p.payments.list({ merchant_id: deep, page: 5, page_size: 250 });
    expect(!byNumber.ok && byNumber.error.error.details).toHaveProperty('page');
    const ids: string[] = [];
    for await (const item of p.payments.listAll({ merchant_id: deep, page_size: 250 })) ids.push(item.id);
    expect(ids.length).toBe(1200);
    expect(new Set(ids).size).toBe(1200);
    const first = await p.payments.list({ merchant_id: deep, page_size: 1 });
    expect(first.ok && first.data.data.count).toBe(1001); // more than 1000 (D108 lists page by keyset over tenant indexes)
  });

  it('keeps no plaintext secret at rest after the whole flow (merchants, webhook endpoints, idempotency keys, credentials)', async () => {
    const dumps: string[] = [];
    for (const table of ['merchants', 'webhook_endpoints', 'idempotency_keys', 'credentials']) {
      const { rows } = await runtime.db.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM ${table} t`);
      expect(rows.length).toBeGreaterThan(0);
      dumps.push(...rows.map((r) => r.row));
    }
    const all = dumps.join('\n');
    // the secrets themselves, anywhere (sealed values included)
    const known = [merchantCreds.client_secret, merchantCreds.encryption_key, webhookSecret, ...replaySecrets];
    expect(known.every((s) => s.length > 10)).toBe(true);
    for (const secret of known) expect(all).not.toContain(secret);
    // and no secret-shaped token outside sealed values: a prefix that starts a token, not one inside a random
    // base64url id or sealed value (`doc_...3cs_a1E` spells `cs_` by chance)
    const unsealed = all.replace(/v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '<sealed>');
    expect(unsealed).toContain('<sealed>');
    expect(unsealed).not.toMatch(/(?<![A-Za-z0-9_-])(ek_|whsec_|cs_)/);
  });
});
