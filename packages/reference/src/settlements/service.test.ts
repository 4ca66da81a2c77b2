import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMerchant, paidOrder, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { getOrder } from '../orders/service.js';
import { getPayment } from '../payments/service.js';
import { createRefund, processDueRefunds } from '../refunds/service.js';
import { getSettlement, listSettlements, runSettlements } from './service.js';

describe.each(testTargets())('settlements on %s', (target) => {
  let t: TestDb;
  let deps: ReturnType<typeof testDeps>;
  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
  });
  afterAll(async () => t?.dispose());

  it('settles captured payments per currency with fee, tax, refunds and forex, and emits PAYMENT_SETTLED', async () => {
    deps.clock.set('2026-11-21T10:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'ps' });
    const inr1 = await paidOrder(deps, m.merchantId, { amount: '1500.00' });
    deps.clock.advance(1);
    const inr2 = await paidOrder(deps, m.merchantId, { amount: '10.25' });
    const usd = await paidOrder(deps, m.merchantId, { amount: '100.00', currency: 'USD' });
    await paidOrder(deps, m.merchantId, {}, 'failure');
    await createRefund(deps, m.merchantScope, { payment_id: inr1.payment_id!, refund_amount: '500.00' });
    deps.clock.advance(61);
    await processDueRefunds(deps);

    deps.clock.set('2026-11-22T09:00:00Z');
    const ids = await runSettlements(deps, m.partnerScope);
    expect(ids).toHaveLength(2);
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // nothing left

    const page = await listSettlements(deps, m.merchantScope, { from_date: '2026-11-22', to_date: '2026-11-22' });
    expect(page.count).toBe(2);
    const inr = page.results.find((s) => s.transactions[0]?.transaction_currency === 'INR')!;
    expect(inr.settlement_id).toMatch(/^ST\d{16}$/);
    expect(inr.utr_number).toMatch(/^[A-Z0-9]{12}$/);
    expect(inr.settlement_currency).toBe('INR');
    expect(inr.forex_rate_cents).toBe(100);
    expect(inr.settlement_completed_date).toBe('2026-11-22T09:00:00.000000Z');
    // 1500.00: fee 30.00 tax 5.40 refund 500.00 -> 964.60; 10.25: fee 0.21 tax 0.04 -> 10.00
    expect(inr.transactions).toEqual([
      { settlement_type: 'capture', transaction_id: inr1.payment_id, transaction_amount: 1500, merchant_service_fee: 30, merchant_service_tax: 5.4, merchant_net_amount: 964.6, mop_type: 'UPI', transaction_currency: 'INR', forex_rate: 1 },
      { settlement_type: 'capture', transaction_id: inr2.payment_id, transaction_amount: 10.25, merchant_service_fee: 0.21, merchant_service_tax: 0.04, merchant_net_amount: 10, mop_type: 'UPI', transaction_currency: 'INR', forex_rate: 1 },
    ]);
    expect(inr.settlement_amount_cents).toBe(97460);
    const usdS = page.results.find((s) => s.transactions[0]?.transaction_currency === 'USD')!;
    // 100.00 USD: fee 2.00, tax 0.36 -> 97.64 USD * 83.50 = 8152.94 INR
    expect(usdS).toMatchObject({ forex_rate_cents: 8350, settlement_amount_cents: 815294, settlement_currency: 'INR' });
    expect(usdS.transactions[0]).toMatchObject({ transaction_id: usd.payment_id, forex_rate: 83.5, merchant_net_amount: 97.64 });

    expect(await getSettlement(deps, m.merchantScope, inr.settlement_id)).toEqual(inr);
    await expect(getSettlement(deps, { partnerId: 'other', merchantId: undefined }, inr.settlement_id)).rejects.toMatchObject({ code: 'ERR_SETTLEMENT_404' });
    expect((await listSettlements(deps, m.merchantScope, { to_date: '2026-11-21' })).count).toBe(0);

    const order = await getOrder(deps, m.merchantScope, inr1.order_id);
    expect(order.payments[0]!.settlement).toEqual({
      status: 'settled',
      message: null,
      settlement_details: { settlement_id: inr.settlement_id, utr_number: inr.utr_number, settlement_completed_date: inr.settlement_completed_date },
    });
    const payment = await getPayment(deps, m.merchantScope, inr2.payment_id!);
    expect(payment.settlement).toEqual({
      id: inr.settlement_id,
      settlement_id: inr.settlement_id,
      settlement_completed_date: inr.settlement_completed_date,
      settlement_amount: 974.6,
      settlement_currency: 'INR',
      utr_number: inr.utr_number,
      number_of_transactions: 2,
      created_date: inr.settlement_completed_date,
    });

    const { rows } = await t.db.query<{ payload: { event_type: string; event_time: string; data: { settlements: unknown[] } } }>(
      `SELECT payload FROM events WHERE type = 'PAYMENT_SETTLED' AND merchant_id = $1`,
      [m.merchantId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payload.event_time).toBe('2026-11-22 09:00:00');
    expect(rows[0]!.payload.data.settlements).toEqual(
      expect.arrayContaining([
        { settlement_id: inr.settlement_id, settlement_utr: inr.utr_number, settlement_done_at: '2026-11-22T09:00:00.000000Z', forex_rate: 1, settlement_amount: 974.6 },
        { settlement_id: usdS.settlement_id, settlement_utr: usdS.utr_number, settlement_done_at: '2026-11-22T09:00:00.000000Z', forex_rate: 83.5, settlement_amount: 8152.94 },
      ]),
    );
  });

  it('deducts refunds processed after settlement in a later run, once, and carries a non-positive net forward', async () => {
    deps.clock.set('2026-11-23T10:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'ps-refund-after' });
    const a = await paidOrder(deps, m.merchantId, { amount: '1000.00' });
    const [first] = await runSettlements(deps, m.partnerScope);
    expect((await getSettlement(deps, m.merchantScope, first!)).settlement_amount_cents).toBe(97640); // 1000 - 20 - 3.60

    await createRefund(deps, m.merchantScope, { payment_id: a.payment_id!, refund_amount: '300.00' });
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // INITIATED: not deductible yet
    deps.clock.advance(61);
    await processDueRefunds(deps);

    const b = await paidOrder(deps, m.merchantId, { amount: '200.00' }); // net 195.28 < the 300.00 refund
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // net -104.72: carried forward, nothing marked
    deps.clock.advance(1);
    const c = await paidOrder(deps, m.merchantId, { amount: '500.00' }); // net 488.20
    const [second] = await runSettlements(deps, m.partnerScope);
    const settled = await getSettlement(deps, m.merchantScope, second!);
    expect(settled.settlement_amount_cents).toBe(38348); // 195.28 + 488.20 - 300.00
    expect(settled.transactions).toEqual([
      expect.objectContaining({ settlement_type: 'capture', transaction_id: b.payment_id, merchant_net_amount: 195.28 }),
      expect.objectContaining({ settlement_type: 'capture', transaction_id: c.payment_id, merchant_net_amount: 488.2 }),
      { settlement_type: 'refund', transaction_id: a.payment_id, transaction_amount: 300, merchant_service_fee: 0, merchant_service_tax: 0, merchant_net_amount: -300, mop_type: 'UPI', transaction_currency: 'INR', forex_rate: 1 },
    ]);
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // the refund is deducted once only

    // Paid out in total: 1700.00 captured - 40.12 fees and taxes - 300.00 refunded.
    const { rows } = await t.db.query<{ total: number }>('SELECT sum(settlement_amount_cents)::bigint AS total FROM settlements WHERE merchant_id = $1', [m.merchantId]);
    expect(Number(rows[0]!.total)).toBe(170000 - 4012 - 30000);
  });

  if (target === 'postgres') it('two processes running settlement together settle each payment once', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'ps2' });
    for (let i = 0; i < 5; i++) await paidOrder(deps, m.merchantId);
    const second = await t.openSecond();
    const [a, b] = await Promise.all([runSettlements(deps, m.partnerScope), runSettlements({ ...deps, db: second }, m.partnerScope)]);
    const { rows } = await t.db.query<{ n: number; s: number }>(
      `SELECT count(*) AS n, count(DISTINCT t.settlement_id) AS s FROM settlement_transactions t JOIN payments p ON p.id = t.payment_id WHERE p.merchant_id = $1`,
      [m.merchantId],
    );
    expect(rows[0]!.n).toBe(5);
    expect(a.length + b.length).toBe(rows[0]!.s);
  });
});
