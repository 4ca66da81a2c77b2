import { verifyCallback } from '@paygate/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approvedMerchant, companyDetails, orderInput, paidOrder, settlementDetails, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { completeCheckoutSession, getCheckoutSession } from '../checkout/service.js';
import { issueMerchantCredentials } from '../credentials/service.js';
import { createDocumentStore } from '../core/documents.js';
import { createMerchant } from '../merchants/service.js';
import { attachOrderDocument, createOrder, expireDueOrders, getOrder, loadOrderWithPayments, patchOrder } from './service.js';
import { completeS2sPayment, processDueS2sCollections } from '../payments/s2s.js';
import { getPayment } from '../payments/service.js';
import type { Scope } from '../core/scope.js';
import { randomIds } from '../core/deps.js';
import { advanceMerchantClock } from '../core/merchant-clock.js';
import { addSeconds, formatIso } from '../core/clock.js';

describe.each(testTargets())('orders and checkout on %s', (target) => {
  let t: TestDb;
  let deps: ReturnType<typeof testDeps>;
  let merchantId: string;
  let scope: Scope;
  let encryptionKey: string;
  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
    const m = await approvedMerchant(deps);
    merchantId = m.merchantId;
    scope = m.merchantScope;
    encryptionKey = (await issueMerchantCredentials(deps, m.partnerId, merchantId)).encryption_key;
  });
  afterAll(async () => t?.dispose());

  async function events(type: string): Promise<{ event_type: string; event_time: string; data: Record<string, unknown> }[]> {
    const { rows } = await t.db.query<{ payload: never }>('SELECT payload FROM events WHERE type = $1 ORDER BY created_at', [type]);
    return rows.map((r) => r.payload);
  }

  it('draws a new random id when the first one is taken (collision retry), and fails loudly on a broken generator', async () => {
    const first = await createOrder(deps, merchantId, orderInput({ reference_id: 'collide-1' }), { isTesting: true });
    const draws = [first.order_id, 'OD0000000000000042'];
    const colliding = { ...deps, ids: randomIds(() => draws.shift() ?? 'OD0000000000000043') };
    const second = await createOrder(colliding, merchantId, orderInput({ reference_id: 'collide-2' }), { isTesting: true });
    expect(second.order_id).toBe('OD0000000000000042');
    const stuck = { ...deps, ids: randomIds(() => first.order_id) };
    await expect(createOrder(stuck, merchantId, orderInput({ reference_id: 'collide-3' }), { isTesting: true })).rejects.toThrow(
      /no free order id after 8 random draws/,
    );
  });

  // Only PostgreSQL runs two transactions at once (PGlite has one connection: the second would wait for the first).
  it.skipIf(target !== 'postgres')('a concurrent twin of an id not yet committed waits for it, then draws again', async () => {
    const twin = 'OD5555555555555555';
    const firstDraws = [twin];
    const secondDraws = [twin, 'OD5555555555555556'];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let markReserved!: () => void;
    const reserved = new Promise<void>((resolve) => (markReserved = resolve));
    const first = t.db.transaction(async (tx) => {
      const id = await randomIds(() => firstDraws.shift()!).next(tx, 'order');
      markReserved();
      await gate; // still uncommitted while the twin draws the same id
      return id;
    });
    await reserved;
    let secondDone = false;
    const second = t.db
      .transaction(async (tx) => randomIds(() => secondDraws.shift()!).next(tx, 'order'))
      .finally(() => (secondDone = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone).toBe(false); // waiting on the first transaction's reservation, not guessing
    release();
    expect(await first).toBe(twin);
    expect(await second).toBe('OD5555555555555556');
    expect(secondDraws).toEqual([]);
  });

  it('hosted order: session, success, signed callback, order read', async () => {
    const created = await createOrder(deps, merchantId, orderInput({ reference_id: 'hosted-1', mop_type: 'NETBANKING' }), {
      isTesting: true,
    });
    expect(created.kind).toBe('hosted');
    if (created.kind !== 'hosted') return;
    expect(created.order_id).toMatch(/^OD\d{16}$/);
    expect(created.session_id).toMatch(/^session_[A-Za-z0-9_-]{43}$/);

    const pending = await getOrder(deps, scope, created.order_id);
    expect(pending).toMatchObject({
      status: 'payment_pending',
      amount: 1500,
      currency: 'INR',
      mop_type: 'NET_BANKING',
      payments: [],
      is_testing: true,
      air_waybills: [],
    });

    const info = await getCheckoutSession(deps, created.session_id);
    expect(info).toMatchObject({ order_id: created.order_id, amount: 1500, merchant_name: 'Acme' });

    deps.clock.advance(30);
    const result = await completeCheckoutSession(deps, created.session_id, { outcome: 'success' });
    expect(result.order_status).toBe('payment_successful');
    expect(result.return_url).toBe('https://shop.example/return');
    const cb = result.callback;
    expect(cb).toMatchObject({ order_id: created.order_id, status: 'payment_successful', mop_type: 'NET_BANKING' });
    expect(cb.payment_id).toMatch(/^PR\d{16}$/);
    expect(cb.bank_ref_num).toMatch(/^\d{12}$/);
    expect(cb.payment_completed_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00$/);
    expect(verifyCallback(cb, encryptionKey)).toBe(true);
    expect(verifyCallback({ ...cb, status: 'payment_failed' }, encryptionKey)).toBe(false);

    const order = await getOrder(deps, scope, created.order_id);
    expect(order.status).toBe('payment_successful');
    expect(order.payments).toEqual([
      {
        payment_id: cb.payment_id,
        mop_type: 'NET_BANKING',
        status: 'captured',
        status_message: 'Payment captured successfully',
        settlement: { status: 'ready_for_settlement', message: null, settlement_details: null },
        created_at: expect.stringMatching(/\.\d{6}Z$/),
      },
    ]);
    // the session is consumed
    await expect(completeCheckoutSession(deps, created.session_id, { outcome: 'success' })).rejects.toMatchObject({
      code: 'ERR_AUTH_000',
      status: 401,
      details: { session_id: 'has already been used' },
    });
  });

  it('bad sessions: malformed, unknown, expired', async () => {
    await expect(getCheckoutSession(deps, 'nope')).rejects.toMatchObject({ code: 'ERR_AUTH_000', details: { session_id: 'is malformed' } });
    await expect(getCheckoutSession(deps, `session_${'A'.repeat(43)}`)).rejects.toMatchObject({ details: { session_id: 'is invalid' } });
    const created = await createOrder(deps, merchantId, orderInput(), { isTesting: true });
    if (created.kind !== 'hosted') throw new Error('hosted expected');
    deps.clock.advance(15 * 60);
    await expect(completeCheckoutSession(deps, created.session_id, { outcome: 'success' })).rejects.toMatchObject({
      code: 'ERR_AUTH_000',
      details: { session_id: expect.stringContaining('expired') },
    });
    // the expiry committed even though the call failed
    const order = await getOrder(deps, scope, created.order_id);
    expect(order.status).toBe('payment_cancelled');
  });

  it('failure emits PAYMENT_FAILED; cancel cancels without a payment', async () => {
    const failed = await paidOrder(deps, merchantId, {}, 'failure');
    expect(failed.order_status).toBe('payment_failed');
    const ev = (await events('PAYMENT_FAILED')).find((e) => e.data['order_id'] === failed.order_id);
    expect(ev).toBeDefined();
    expect(ev!.event_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
    expect(ev!.data).toEqual({
      status: 'FAILED',
      message: 'Payment declined by the issuing bank',
      mop_type: 'UPI',
      order_id: failed.order_id,
      payment_id: failed.payment_id,
      bank_ref_num: failed.callback.bank_ref_num,
      payment_completed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    const order = await getOrder(deps, scope, failed.order_id);
    expect(order.payments[0]).toMatchObject({ status: 'failed', settlement: { status: 'not_applicable' } });

    const cancelled = await paidOrder(deps, merchantId, {}, 'cancel');
    expect(cancelled).toMatchObject({
      order_status: 'payment_cancelled',
      payment_id: null,
      callback: { status: 'payment_cancelled', payment_id: '', bank_ref_num: '', payment_completed_at: '' },
    });
    expect(verifyCallback(cancelled.callback, encryptionKey)).toBe(true);
  });

  it('reference_id is unique per merchant; merchant must be approved', async () => {
    await createOrder(deps, merchantId, orderInput({ reference_id: 'dup-1' }), { isTesting: true });
    await expect(createOrder(deps, merchantId, orderInput({ reference_id: 'dup-1' }), { isTesting: true })).rejects.toMatchObject({
      code: 'ERR_ORDER_409',
      status: 409,
    });
    const pendingMerchant = await createMerchant(deps, 'default', {
      settlement_details: settlementDetails(),
      company_details: companyDetails(),
    });
    await expect(createOrder(deps, pendingMerchant.id, orderInput(), { isTesting: true })).rejects.toMatchObject({
      code: 'ERR_MERCHANT_422',
    });
    await expect(createOrder(deps, merchantId, orderInput({ amount: '0.50' }), { isTesting: true })).rejects.toMatchObject({
      code: 'ERR_VALIDATION_400',
      details: { amount: expect.any(String) },
    });
  });

  it.each([
    ['a reused reference_id', 'ERR_ORDER_409'],
    ['a merchant not approved', 'ERR_MERCHANT_422'],
    ['another partner naming the merchant', 'ERR_MERCHANT_404'],
  ])('a hosted order refused for %s writes nothing: no order, no session, no id reserved (D175)', async (label, code) => {
    const pending = await createMerchant(deps, 'default', { settlement_details: settlementDetails(), company_details: companyDetails() });
    await createOrder(deps, merchantId, orderInput({ reference_id: 'refused-twice' }), { isTesting: true }).catch(() => undefined);
    const count = async () =>
      (
        await t.db.query<{ n: string }>(
          `SELECT (SELECT count(*) FROM issued_ids WHERE kind = 'order') + (SELECT count(*) FROM orders)
                  + (SELECT count(*) FROM checkout_sessions) AS n`,
        )
      ).rows[0]!.n;
    const before = await count();
    const attempt =
      label === 'a reused reference_id'
        ? createOrder(deps, merchantId, orderInput({ reference_id: 'refused-twice' }), { isTesting: true })
        : label === 'a merchant not approved'
          ? createOrder(deps, pending.id, orderInput(), { isTesting: true })
          : createOrder(deps, merchantId, orderInput(), { isTesting: true, ownerPartnerId: 'nobody' });
    await expect(attempt).rejects.toMatchObject({ code });
    expect(await count()).toBe(before);
  });

  it("a hosted order and its session are dated on the merchant's sandbox clock, expiring 15 minutes later (D175)", async () => {
    const clocked = await approvedMerchant(deps, { partnerId: 'clocked' });
    await advanceMerchantClock(deps.clock, t.db, clocked.merchantId, 3600);
    const created = await createOrder(deps, clocked.merchantId, orderInput({ reference_id: 'clocked-1' }), { isTesting: true });
    if (created.kind !== 'hosted') throw new Error('expected a hosted order');
    const { rows } = await t.db.query<{ created_at: string; expires_at: string; updated_at: string; s_created: string; s_expires: string }>(
      `SELECT o.created_at, o.expires_at, o.updated_at, s.created_at AS s_created, s.expires_at AS s_expires
       FROM orders o JOIN checkout_sessions s ON s.order_id = o.id WHERE o.id = $1 AND s.id = $2`,
      [created.order_id, created.session_id],
    );
    const at = addSeconds(deps.clock.now(), 3600);
    expect(rows[0]).toEqual({
      created_at: formatIso(at),
      updated_at: formatIso(at),
      s_created: formatIso(at),
      expires_at: formatIso(addSeconds(at, 15 * 60)),
      s_expires: formatIso(addSeconds(at, 15 * 60)),
    });
  });

  it.each([
    ['the owning partner', 'default', 'created'],
    ['another partner', 'other-owner', 'ERR_MERCHANT_404'],
    ['a partner naming no merchant', 'default', 'ERR_MERCHANT_404'],
  ])("a partner's X-Merchant-ID is checked in the merchant read (ownerPartnerId): %s", async (label, owner, outcome) => {
    await approvedMerchant(deps, { partnerId: 'other-owner' });
    const target = label === 'a partner naming no merchant' ? 'MR0000000000000000' : merchantId;
    const attempt = createOrder(deps, target, orderInput(), { isTesting: true, ownerPartnerId: owner });
    if (outcome === 'created') await expect(attempt).resolves.toMatchObject({ kind: 'hosted' });
    else await expect(attempt).rejects.toMatchObject({ code: outcome, status: 404, details: { 'x-merchant-id': 'no such merchant' } });
  });

  it('tenant isolation: another merchant cannot read the order', async () => {
    const other = await approvedMerchant(deps, { partnerId: 'other' });
    const created = await createOrder(deps, merchantId, orderInput(), { isTesting: true });
    await expect(getOrder(deps, other.merchantScope, created.order_id)).rejects.toMatchObject({ code: 'ERR_ORDER_404' });
    await expect(getOrder(deps, other.partnerScope, created.order_id)).rejects.toMatchObject({ code: 'ERR_ORDER_404' });
    await expect(getOrder(deps, { partnerId: 'default', merchantId: undefined }, created.order_id)).resolves.toMatchObject({
      order_id: created.order_id,
    });
  });

  it('s2s intent: UPI link for the app, PENDING payment, completion', async () => {
    const created = await createOrder(
      deps,
      merchantId,
      orderInput({ collection_mode: 's2s', upi_flow_type: 'intent', upi_app_name: 'phonepe', amount: '250.50' }),
      { isTesting: true },
    );
    if (created.kind !== 'intent') throw new Error('intent expected');
    const url = new URL(created.intent_uri);
    expect(url.protocol).toBe('phonepe:');
    expect(url.searchParams.get('am')).toBe('250.50');
    expect(url.searchParams.get('cu')).toBe('INR');
    expect(url.searchParams.get('tr')).toBe(created.order_id);
    expect(url.searchParams.get('pa')).toBe(`pg.${merchantId}@paygate`);
    const before = await getOrder(deps, scope, created.order_id);
    expect(before.payments).toMatchObject([{ status: 'pending', mop_type: 'UPI', settlement: { status: 'pending' } }]);
    // the spec: no bank reference while the payment is PENDING, one once the bank answered
    const paymentId = (before.payments as { payment_id: string }[])[0]!.payment_id;
    expect(await getPayment(deps, scope, paymentId)).toMatchObject({ status: 'PENDING', bank_ref_num: null });
    await completeS2sPayment(deps, scope, created.order_id, 'success');
    expect((await getOrder(deps, scope, created.order_id)).status).toBe('payment_successful');
    expect(await getPayment(deps, scope, paymentId)).toMatchObject({ status: 'CAPTURED', bank_ref_num: expect.stringMatching(/^\d{12}$/) });
    await expect(completeS2sPayment(deps, scope, created.order_id, 'success')).rejects.toMatchObject({ code: 'ERR_ORDER_422' });
  });

  it('s2s collection: sandbox VPAs complete after 5 s, others expire after 15 min', async () => {
    const ok = await createOrder(
      deps,
      merchantId,
      orderInput({ collection_mode: 's2s', upi_flow_type: 'collection', vpa: 'success@paygate' }),
      { isTesting: true },
    );
    const ko = await createOrder(
      deps,
      merchantId,
      orderInput({ collection_mode: 's2s', upi_flow_type: 'collection', vpa: 'failure@paygate' }),
      { isTesting: true },
    );
    const slow = await createOrder(
      deps,
      merchantId,
      orderInput({ collection_mode: 's2s', upi_flow_type: 'collection', vpa: 'asha@okbank' }),
      { isTesting: true },
    );
    expect(ok).toMatchObject({ kind: 'collection', message: 'Collection request sent to success@paygate' });
    expect(await processDueS2sCollections(deps)).toBe(0);
    deps.clock.advance(5);
    expect(await processDueS2sCollections(deps)).toBe(2);
    expect((await getOrder(deps, scope, ok.order_id)).status).toBe('payment_successful');
    expect((await getOrder(deps, scope, ko.order_id)).status).toBe('payment_failed');
    expect((await getOrder(deps, scope, slow.order_id)).status).toBe('payment_pending');
    deps.clock.advance(15 * 60);
    expect(await expireDueOrders(deps)).toBeGreaterThanOrEqual(1);
    const expired = await getOrder(deps, scope, slow.order_id);
    expect(expired.status).toBe('payment_cancelled');
    expect(expired.payments).toMatchObject([{ status: 'failed', settlement: { status: 'not_applicable' } }]);
  });

  it('patches the four correctable fields and attaches documents', async () => {
    const store = createDocumentStore('memory://', 'https://gw.example');
    const created = await createOrder(deps, merchantId, orderInput({ invoice: { number: 'INV-1', date: '2026-11-01' } }), {
      isTesting: true,
    });
    const patched = await patchOrder(deps, scope, created.order_id, {
      buyer: { pan_number: 'ABCDE1234F', dob: '1990-01-31' },
      invoice: { date: '2026-11-02' },
    });
    expect(patched).toEqual({
      order_id: created.order_id,
      buyer: { pan_number: 'ABCDE1234F', dob: '1990-01-31' },
      invoice: { number: 'INV-1', date: '2026-11-02' },
    });
    await expect(patchOrder(deps, scope, 'OD0000000000000000', { invoice: { number: 'x' } })).rejects.toMatchObject({
      code: 'ERR_ORDER_404',
    });

    const pdf = { bytes: new TextEncoder().encode('%PDF-1.7 doc'), contentType: 'application/pdf', originalName: 'a.pdf' };
    await attachOrderDocument(deps, store, scope, created.order_id, { identifier: 'INV-9', documentType: 'invoice', file: pdf });
    const order = await attachOrderDocument(deps, store, scope, created.order_id, {
      identifier: 'AWB-1',
      documentType: 'air_waybill',
      file: pdf,
    });
    expect(order.invoice).toEqual({
      number: 'INV-9',
      date: '2026-11-02',
      file: expect.stringMatching(/^https:\/\/gw\.example\/files\/doc_/),
    });
    expect(order.air_waybills).toEqual([{ number: 'AWB-1', file: expect.stringMatching(/^https:\/\/gw\.example\/files\/doc_/) }]);
    expect(order.buyer).toMatchObject({ name: 'Asha Rao', pan_number: 'ABCDE1234F' });
  });

  // D178: the PostgreSQL adapter sends the Order reads of requests that arrive together as one statement
  it.skipIf(target !== 'postgres')('order reads issued together: one statement per kind of scope, each answered as alone', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'batch-partner' });
    const stranger = await approvedMerchant(deps, { partnerId: 'batch-stranger' });
    const a = (await createOrder(deps, m.merchantId, orderInput({ reference_id: 'batch-a' }), { isTesting: true })).order_id;
    const b = (await createOrder(deps, m.merchantId, orderInput({ reference_id: 'batch-b' }), { isTesting: true })).order_id;
    const foreign = (await createOrder(deps, stranger.merchantId, orderInput({ reference_id: 'batch-f' }), { isTesting: true })).order_id;
    const alone = [
      await getOrder(deps, m.merchantScope, a),
      await getOrder(deps, m.merchantScope, b),
      await getOrder(deps, m.partnerScope, a),
    ];
    const sent = vi.spyOn(pg.Pool.prototype, 'query');
    let together: PromiseSettledResult<unknown>[];
    try {
      together = await Promise.allSettled([
        getOrder(deps, m.merchantScope, a),
        getOrder(deps, m.merchantScope, b),
        getOrder(deps, m.merchantScope, a),
        getOrder(deps, m.merchantScope, foreign), // another merchant's order, in the same statement
        getOrder(deps, m.partnerScope, a),
      ]);
      expect(sent).toHaveBeenCalledTimes(2); // the merchant-scoped reads together, the partner-scoped one alone
    } finally {
      sent.mockRestore();
    }
    expect(together).toEqual([
      { status: 'fulfilled', value: alone[0] },
      { status: 'fulfilled', value: alone[1] },
      { status: 'fulfilled', value: alone[0] },
      { status: 'rejected', reason: expect.objectContaining({ code: 'ERR_ORDER_404' }) },
      { status: 'fulfilled', value: alone[2] },
    ]);
    expect((together[0] as PromiseFulfilledResult<{ order_id: string }>).value.order_id).toBe(a);

    // a read inside a transaction is the transaction's own statement: it sees the transaction's writes
    await t.db
      .transaction(async (tx) => {
        await tx.query("UPDATE orders SET status_message = 'inside' WHERE id = $1", [a]);
        expect((await loadOrderWithPayments(tx, m.merchantScope, a)).order.status_message).toBe('inside');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    // and a read issued after a write committed sees it, batched or not
    await t.db.query("UPDATE orders SET status_message = 'committed' WHERE id = $1", [b]);
    const after = await Promise.all([getOrder(deps, m.merchantScope, a), getOrder(deps, m.merchantScope, b)]);
    expect(after.map((o) => o.status_message)).toEqual([alone[0]!.status_message, 'committed']);
  });
});
