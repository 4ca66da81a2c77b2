import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMerchant, paidOrder, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { getPayment, listPayments } from '../payments/service.js';
import { completeRefund, createRefund, getRefund, listRefunds, processDueRefunds } from './service.js';
import { randomIds } from '../core/deps.js';
import type { Scope } from '../core/scope.js';

describe.each(testTargets())('payments and refunds on %s', (target) => {
  let t: TestDb;
  let deps: ReturnType<typeof testDeps>;
  let merchantId: string;
  let scope: Scope;
  let partnerScope: Scope;
  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
    const m = await approvedMerchant(deps);
    merchantId = m.merchantId;
    scope = m.merchantScope;
    partnerScope = m.partnerScope;
  });
  afterAll(async () => t?.dispose());

  it('reads a payment with its order', async () => {
    const paid = await paidOrder(deps, merchantId, { reference_id: 'pay-read', amount: '99.95' });
    const p = await getPayment(deps, scope, paid.payment_id!);
    expect(p).toMatchObject({
      payment_id: paid.payment_id,
      order: { order_id: paid.order_id, reference_id: 'pay-read', amount: 99.95, currency: 'INR', status: 'payment_successful' },
      settlement: null,
      refund: [],
      collection_mode: 'HOSTED_PAYMENT',
      mop_type: 'UPI',
      mop_detail: { upi_id: 'asha@okbank' },
      status: 'CAPTURED',
      bank_ref_num: paid.callback.bank_ref_num,
    });
    expect(p.payment_completed_at).toMatch(/\.\d{6}Z$/);
    await expect(getPayment(deps, { partnerId: 'nobody', merchantId: undefined }, paid.payment_id!)).rejects.toMatchObject({
      code: 'ERR_PAYMENT_404',
    });
  });

  it('lists payments with every filter combinable, paginated newest first', async () => {
    deps.clock.set('2026-12-01T08:00:00Z');
    const a = await paidOrder(deps, merchantId, {
      reference_id: 'list-a',
      buyer: { name: 'Zoë Quinn', email: 'z@example.com', phone: '1' },
    });
    deps.clock.set('2026-12-02T08:00:00Z');
    const b = await paidOrder(
      deps,
      merchantId,
      { reference_id: 'list-b', buyer: { name: 'Ravi 100%_sure', email: 'r@example.com', phone: '2' } },
      'failure',
    );
    deps.clock.set('2026-12-03T08:00:00Z');
    const c = await paidOrder(deps, merchantId, { reference_id: 'list-c', currency: 'USD' });

    const all = await listPayments(deps, partnerScope, { from_created_date: '2026-12-01', to_created_date: '2026-12-03', page_size: 2 });
    expect(all.count).toBe(3);
    expect(all.results.map((r) => r.id)).toEqual([c.payment_id, b.payment_id]);
    const page2 = await listPayments(deps, partnerScope, { from_created_date: '2026-12-01', page: 2, page_size: 2 });
    expect(page2.results.map((r) => r.id)).toEqual([a.payment_id]);
    expect(page2.results[0]).toEqual({
      id: a.payment_id,
      merchant: { id: merchantId, name: 'Acme' },
      reference_id: 'list-a',
      buyer: { name: 'Zoë Quinn', email: 'z@example.com', phone: '1' },
      payment_id: a.order_id,
      amount: { amount: '1500.00', total_amount: '1500.00', currency: 'INR' },
      created_at: '2026-12-01T08:00:00.000000Z',
      comment: null,
      mop_type: 'UPI',
      status: 'CAPTURED',
    });
    const q = (f: Parameters<typeof listPayments>[2]) => listPayments(deps, scope, f).then((p) => p.results.map((r) => r.reference_id));
    expect(await q({ status: 'FAILED', from_created_date: '2026-12-01' })).toEqual(['list-b']);
    expect(await q({ currency: 'USD' })).toEqual(['list-c']);
    // buyer_name is the whole name, case-insensitive (D109 buyer_name filter matches the whole name): a part of it no longer matches
    expect(await q({ buyer_name: 'zoË QUINN' })).toEqual(['list-a']);
    expect(await q({ buyer_name: 'zoË' })).toEqual([]);
    expect(await q({ buyer_name: 'ravi 100%_SURE' })).toEqual(['list-b']);
    expect(await q({ buyer_name: '100%_' })).toEqual([]);
    expect(await q({ buyer_name: '%', status: 'CAPTURED' })).toEqual([]);
    // the payments' copy of the name follows a change of the order's buyer (migration 012's trigger)
    await deps.db.query(`UPDATE orders SET buyer = jsonb_set(buyer, '{name}', '"Zoe Renamed"') WHERE id = $1`, [a.order_id]);
    expect(await q({ buyer_name: 'zoe renamed' })).toEqual(['list-a']);
    expect(await q({ buyer_name: 'zoË quinn' })).toEqual([]);
    expect(await q({ reference_id: 'list-a', mop_type: 'UPI', merchant_id: merchantId, payment_id: a.payment_id! })).toEqual(['list-a']);
    expect(await q({ from_created_date: '2026-12-02', to_created_date: '2026-12-02' })).toEqual(['list-b']);
    expect(await q({ mop_type: 'NETBANKING', from_created_date: '2026-12-01' })).toEqual([]);
    await expect(q({ status: 'captured' })).rejects.toMatchObject({ code: 'ERR_VALIDATION_400', details: { status: expect.any(String) } });
    await expect(q({ from_created_date: '01-12-2026' })).rejects.toMatchObject({ details: { from_created_date: expect.any(String) } });
  });

  it('refunds: bounds, partial and repeated, FAILED frees the amount', async () => {
    const paid = await paidOrder(deps, merchantId, { amount: '100.00' });
    const pid = paid.payment_id!;
    const r1 = await createRefund(deps, scope, { payment_id: pid, refund_amount: '60.00' });
    expect(r1).toMatchObject({
      payment_id: pid,
      refund_status: 'INITIATED',
      refund_amount: 60,
      bank_ref_num: null,
      message: 'Refund request has been queued for processing',
    });
    expect(r1.refund_id).toMatch(/^RF\d{16}$/);
    expect(r1.transaction_id).toMatch(/^TX\d{16}$/);
    await expect(createRefund(deps, scope, { payment_id: pid, refund_amount: '40.01' })).rejects.toMatchObject({
      code: 'ERR_REFUND_422',
      status: 422,
      details: { refund_amount: expect.stringContaining('40.00') },
    });
    await expect(createRefund(deps, scope, { payment_id: pid, refund_amount: '0.00' })).rejects.toMatchObject({ code: 'ERR_REFUND_422' });
    await expect(createRefund(deps, scope, { payment_id: pid, refund_amount: '1' })).rejects.toMatchObject({ code: 'ERR_VALIDATION_400' });
    deps.clock.advance(0.001); // refunds are listed by creation time; ids are random, so keep the instants apart
    const r2 = await createRefund(deps, scope, { payment_id: pid, refund_amount: '40.00' });
    await completeRefund(deps, scope, r2.refund_id, 'FAILED');
    await expect(completeRefund(deps, scope, r2.refund_id, 'PROCESSED')).rejects.toMatchObject({ code: 'ERR_REFUND_422' });
    deps.clock.advance(0.001);
    const r3 = await createRefund(deps, scope, { payment_id: pid, refund_amount: '40.00' });
    expect(r3.refund_status).toBe('INITIATED');

    const failedPay = await paidOrder(deps, merchantId, {}, 'failure');
    await expect(createRefund(deps, scope, { payment_id: failedPay.payment_id!, refund_amount: '1.00' })).rejects.toMatchObject({
      code: 'ERR_REFUND_422',
      details: { payment_id: 'payment status is FAILED' },
    });
    await expect(createRefund(deps, scope, { payment_id: 'PR0000000000000000', refund_amount: '1.00' })).rejects.toMatchObject({
      code: 'ERR_PAYMENT_404',
    });

    // sandbox: processed 60 s after creation
    expect(await processDueRefunds(deps)).toBe(0);
    deps.clock.advance(60);
    expect(await processDueRefunds(deps)).toBeGreaterThanOrEqual(2);
    const done = await getRefund(deps, scope, r1.refund_id);
    expect(done).toMatchObject({ refund_status: 'PROCESSED', refund_amount: 60, message: 'Refund processed successfully' });
    expect(done.refunded_at).toMatch(/\.\d{6}Z$/);
    await expect(getRefund(deps, { partnerId: 'x', merchantId: undefined }, r1.refund_id)).rejects.toMatchObject({
      code: 'ERR_REFUND_404',
    });

    const payment = await getPayment(deps, scope, pid);
    expect(payment.refund.map((r) => r.refund_status)).toEqual(['PROCESSED', 'FAILED', 'PROCESSED']);

    const listed = await listRefunds(deps, scope, { payment_id: pid });
    expect(listed.count).toBe(3);
    expect(listed.page_size).toBe(250);
    expect((await listRefunds(deps, scope, { reference_id: 'no-such-ref' })).count).toBe(0);
    const day = new Date(Math.floor(deps.clock.now() / 1000)).toISOString().slice(0, 10);
    expect((await listRefunds(deps, partnerScope, { from_date: day, to_date: day, merchant_id: merchantId })).count).toBeGreaterThanOrEqual(
      3,
    );
  });

  if (target === 'postgres')
    it('50 concurrent refunds from two processes never exceed the captured amount', async () => {
      const paid = await paidOrder(deps, merchantId, { amount: '100.00' });
      const second = await t.openSecond();
      const deps2 = { ...deps, db: second, ids: randomIds() };
      const attempts = Array.from({ length: 50 }, (_, i) =>
        createRefund(i % 2 ? deps : deps2, scope, { payment_id: paid.payment_id!, refund_amount: '7.00' }).then(
          () => 'ok' as const,
          (err: { code?: string }) => err.code ?? 'error',
        ),
      );
      const outcomes = await Promise.all(attempts);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(14); // 14 * 7.00 = 98.00 <= 100.00 < 15 * 7.00
      expect(outcomes.filter((o) => o === 'ERR_REFUND_422')).toHaveLength(36);
      const { rows } = await t.db.query<{ total: number }>(`SELECT sum(amount_minor)::bigint AS total FROM refunds WHERE payment_id = $1`, [
        paid.payment_id,
      ]);
      expect(rows[0]!.total).toBe(9800);
    });
});
