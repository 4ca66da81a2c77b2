import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMerchant, paidOrder, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { getOrder } from '../orders/service.js';
import { getPayment } from '../payments/service.js';
import { completeRefund, createRefund, processDueRefunds } from '../refunds/service.js';
import { getSettlement, listSettlements, listSettlementTransactions, runSettlements } from './service.js';

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
      {
        settlement_type: 'capture',
        transaction_id: inr1.payment_id,
        transaction_amount: 1500,
        merchant_service_fee: 30,
        merchant_service_tax: 5.4,
        merchant_net_amount: 964.6,
        mop_type: 'UPI',
        transaction_currency: 'INR',
        forex_rate: 1,
      },
      {
        settlement_type: 'capture',
        transaction_id: inr2.payment_id,
        transaction_amount: 10.25,
        merchant_service_fee: 0.21,
        merchant_service_tax: 0.04,
        merchant_net_amount: 10,
        mop_type: 'UPI',
        transaction_currency: 'INR',
        forex_rate: 1,
      },
    ]);
    expect(inr.settlement_amount_cents).toBe(97460);
    const usdS = page.results.find((s) => s.transactions[0]?.transaction_currency === 'USD')!;
    // 100.00 USD: fee 2.00, tax 0.36 -> 97.64 USD * 83.50 = 8152.94 INR
    expect(usdS).toMatchObject({ forex_rate_cents: 8350, settlement_amount_cents: 815294, settlement_currency: 'INR' });
    expect(usdS.transactions[0]).toMatchObject({ transaction_id: usd.payment_id, forex_rate: 83.5, merchant_net_amount: 97.64 });

    expect(await getSettlement(deps, m.merchantScope, inr.settlement_id)).toEqual(inr);
    await expect(getSettlement(deps, { partnerId: 'other', merchantId: undefined }, inr.settlement_id)).rejects.toMatchObject({
      code: 'ERR_SETTLEMENT_404',
    });
    expect((await listSettlements(deps, m.merchantScope, { to_date: '2026-11-21' })).count).toBe(0);

    const order = await getOrder(deps, m.merchantScope, inr1.order_id);
    expect(order.payments[0]!.settlement).toEqual({
      status: 'settled',
      message: null,
      settlement_details: {
        settlement_id: inr.settlement_id,
        utr_number: inr.utr_number,
        settlement_completed_date: inr.settlement_completed_date,
      },
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
        {
          settlement_id: inr.settlement_id,
          settlement_utr: inr.utr_number,
          settlement_done_at: '2026-11-22T09:00:00.000000Z',
          forex_rate: 1,
          settlement_amount: 974.6,
        },
        {
          settlement_id: usdS.settlement_id,
          settlement_utr: usdS.utr_number,
          settlement_done_at: '2026-11-22T09:00:00.000000Z',
          forex_rate: 83.5,
          settlement_amount: 8152.94,
        },
      ]),
    );
  });

  it('deducts refunds processed after settlement in a later run, once; a non-positive net is a recorded debit, never carried', async () => {
    deps.clock.set('2026-11-23T10:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'ps-refund-after' });
    const a = await paidOrder(deps, m.merchantId, { amount: '1000.00' });
    const [first] = await runSettlements(deps, m.partnerScope);
    expect((await getSettlement(deps, m.merchantScope, first!)).settlement_amount_cents).toBe(97640); // 1000 - 20 - 3.60

    const refund = await createRefund(deps, m.merchantScope, { payment_id: a.payment_id!, refund_amount: '300.00' });
    deps.clock.advance(61);
    await processDueRefunds(deps); // processed before any run reserved it

    const b = await paidOrder(deps, m.merchantId, { amount: '200.00' }); // net 195.28 < the 300.00 refund
    const [debit] = await runSettlements(deps, m.partnerScope);
    const recorded = await getSettlement(deps, m.merchantScope, debit!);
    expect(recorded.settlement_amount_cents).toBe(-10472); // 195.28 - 300.00: debited from the merchant, visibly
    expect(recorded.transactions).toEqual([
      expect.objectContaining({ settlement_type: 'capture', transaction_id: b.payment_id, merchant_net_amount: 195.28 }),
      {
        settlement_type: 'refund',
        transaction_id: a.payment_id,
        transaction_amount: 300,
        merchant_service_fee: 0,
        merchant_service_tax: 0,
        merchant_net_amount: -300,
        mop_type: 'UPI',
        transaction_currency: 'INR',
        forex_rate: 1,
      },
    ]);
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // the refund is deducted once only
    const { rows: refundRows } = await t.db.query<{ settlement_id: string }>('SELECT settlement_id FROM refunds WHERE id = $1', [
      refund.refund_id,
    ]);
    expect(refundRows[0]!.settlement_id).toBe(debit);

    // Paid out in total: 1200.00 captured - 28.32 fees and taxes - 300.00 refunded.
    const { rows } = await t.db.query<{ total: number }>(
      'SELECT sum(settlement_amount_cents)::bigint AS total FROM settlements WHERE merchant_id = $1',
      [m.merchantId],
    );
    expect(Number(rows[0]!.total)).toBe(120000 - 2832 - 30000);
  });

  it('reserves a pending refund in the settlement, then uses it once (processed) or releases it once (failed)', async () => {
    deps.clock.set('2026-11-24T10:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'ps-reserve' });
    const a = await paidOrder(deps, m.merchantId, { amount: '1000.00' }); // net 976.40
    deps.clock.advance(1);
    const b = await paidOrder(deps, m.merchantId, { amount: '500.00' }); // net 488.20
    const kept = await createRefund(deps, m.merchantScope, { payment_id: a.payment_id!, refund_amount: '300.00' });
    const failing = await createRefund(deps, m.merchantScope, { payment_id: b.payment_id!, refund_amount: '100.00' });

    const [held] = await runSettlements(deps, m.partnerScope);
    const settlement = await getSettlement(deps, m.merchantScope, held!);
    // the reserves are lines of the settlement: 976.40 + 488.20 - 300.00 - 100.00
    expect(settlement.settlement_amount_cents).toBe(106460);
    expect(settlement.transactions.map((l) => [l.settlement_type, l.transaction_id, l.merchant_net_amount])).toEqual([
      ['capture', a.payment_id, 976.4],
      ['refund_reserve', a.payment_id, -300],
      ['capture', b.payment_id, 488.2],
      ['refund_reserve', b.payment_id, -100],
    ]);
    const reserves = async () =>
      (
        await t.db.query<{ refund_id: string; status: string; held_by: string; released_by: string | null }>(
          'SELECT refund_id, status, held_by, released_by FROM settlement_reserves WHERE merchant_id = $1 ORDER BY amount_minor DESC',
          [m.merchantId],
        )
      ).rows;
    expect(await reserves()).toEqual([
      { refund_id: kept.refund_id, status: 'held', held_by: held, released_by: null },
      { refund_id: failing.refund_id, status: 'held', held_by: held, released_by: null },
    ]);
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // held once: nothing new to settle

    // The refunds end: one processed (the reserve was its deduction), one failed (the reserve comes back).
    await completeRefund(deps, m.merchantScope, kept.refund_id, 'PROCESSED');
    await completeRefund(deps, m.merchantScope, failing.refund_id, 'FAILED');
    expect(await reserves()).toEqual([
      { refund_id: kept.refund_id, status: 'used', held_by: held, released_by: null },
      { refund_id: failing.refund_id, status: 'releasable', held_by: held, released_by: null },
    ]);
    const [released] = await runSettlements(deps, m.partnerScope);
    const release = await getSettlement(deps, m.merchantScope, released!);
    expect(release.settlement_amount_cents).toBe(10000);
    expect(release.transactions).toEqual([
      {
        settlement_type: 'reserve_release',
        transaction_id: b.payment_id,
        transaction_amount: 100,
        merchant_service_fee: 0,
        merchant_service_tax: 0,
        merchant_net_amount: 100,
        mop_type: 'UPI',
        transaction_currency: 'INR',
        forex_rate: 1,
      },
    ]);
    expect(await reserves()).toEqual([
      { refund_id: kept.refund_id, status: 'used', held_by: held, released_by: null },
      { refund_id: failing.refund_id, status: 'released', held_by: held, released_by: released },
    ]);
    expect(await runSettlements(deps, m.partnerScope)).toEqual([]); // released once, the used reserve never deducted again

    // 1500.00 captured - 35.40 fees and taxes - 300.00 refunded, in two settlements.
    const { rows } = await t.db.query<{ total: number }>(
      'SELECT sum(settlement_amount_cents)::bigint AS total FROM settlements WHERE merchant_id = $1',
      [m.merchantId],
    );
    expect(Number(rows[0]!.total)).toBe(150000 - 3540 - 30000);
  });

  it('pays a cross-currency merchant with the exact rate (the worked example of docs/decisions.md, end to end)', async () => {
    deps.clock.set('2026-11-25T10:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'ps-gbp', country: 'GB' });
    const a = await paidOrder(deps, m.merchantId, { amount: '1500.00' });
    deps.clock.advance(1);
    const b = await paidOrder(deps, m.merchantId, { amount: '2000.00' });
    await createRefund(deps, m.merchantScope, { payment_id: a.payment_id!, refund_amount: '500.00' });
    deps.clock.advance(61);
    await processDueRefunds(deps);
    await createRefund(deps, m.merchantScope, { payment_id: b.payment_id!, refund_amount: '300.00' });
    const [id] = await runSettlements(deps, m.partnerScope);
    const s = await getSettlement(deps, m.merchantScope, id!);
    expect(s).toMatchObject({ settlement_currency: 'GBP', forex_rate_cents: 1, settlement_amount_cents: 2481 });
    expect(s.transactions.map((l) => [l.settlement_type, l.merchant_net_amount, l.forex_rate])).toEqual([
      ['capture', 964.6, 0.00947867],
      ['capture', 1952.8, 0.00947867],
      ['refund_reserve', -300, 0.00947867],
    ]);
  });

  if (target === 'postgres')
    it('two processes running settlement together settle each payment once and hold each reserve once', async () => {
      const m = await approvedMerchant(deps, { partnerId: 'ps2' });
      const paid = [];
      for (let i = 0; i < 5; i++) paid.push(await paidOrder(deps, m.merchantId));
      for (const p of paid.slice(0, 2)) await createRefund(deps, m.merchantScope, { payment_id: p.payment_id!, refund_amount: '100.00' });
      const second = await t.openSecond();
      const [a, b] = await Promise.all([runSettlements(deps, m.partnerScope), runSettlements({ ...deps, db: second }, m.partnerScope)]);
      const { rows } = await t.db.query<{ n: number; s: number }>(
        `SELECT count(*) AS n, count(DISTINCT t.settlement_id) AS s FROM settlement_transactions t JOIN payments p ON p.id = t.payment_id
       WHERE p.merchant_id = $1 AND t.settlement_type = 'capture'`,
        [m.merchantId],
      );
      expect(rows[0]!.n).toBe(5);
      expect(a.length + b.length).toBe(rows[0]!.s);
      const held = await t.db.query<{ n: number; total: number }>(
        `SELECT count(*) AS n, sum(amount_minor)::bigint AS total FROM settlement_reserves WHERE merchant_id = $1 AND status = 'held'`,
        [m.merchantId],
      );
      expect(held.rows[0]).toEqual({ n: 2, total: 20000 });
      const lines = await t.db.query<{ n: number }>(
        `SELECT count(*) AS n FROM settlement_transactions t JOIN settlements s ON s.id = t.settlement_id
       WHERE s.merchant_id = $1 AND t.settlement_type = 'refund_reserve'`,
        [m.merchantId],
      );
      expect(lines.rows[0]!.n).toBe(2);
    });

  /** One merchant's lines as (payment, type, net), in position order, and its settlement rows. */
  async function linesOf(merchantId: string) {
    const { rows } = await t.db.query<{
      settlement_id: string;
      payment_id: string;
      settlement_type: string;
      net_minor: number;
      position: number;
    }>(
      `SELECT t.settlement_id, t.payment_id, t.settlement_type, t.net_minor, t.position FROM settlement_transactions t
       JOIN settlements s ON s.id = t.settlement_id WHERE s.merchant_id = $1 ORDER BY s.transaction_currency, t.position`,
      [merchantId],
    );
    const { rows: settlements } = await t.db.query<{
      id: string;
      status: string;
      number_of_transactions: number;
      net_minor: number;
      settlement_amount_cents: number;
    }>(
      'SELECT id, status, number_of_transactions, net_minor, settlement_amount_cents FROM settlements WHERE merchant_id = $1 ORDER BY transaction_currency',
      [merchantId],
    );
    return { lines: rows, settlements };
  }

  /** Five INR and two USD captures, one with a processed refund and one with a refund still INITIATED. */
  async function merchantWithPayments(partnerId: string) {
    const m = await approvedMerchant(deps, { partnerId });
    const paid = [];
    for (let i = 0; i < 7; i++) {
      deps.clock.advance(1); // lines follow payment creation
      paid.push(await paidOrder(deps, m.merchantId, i < 5 ? { amount: `${100 + i}.25` } : { amount: `${15 + i}.00`, currency: 'USD' }));
    }
    await createRefund(deps, m.merchantScope, { payment_id: paid[1]!.payment_id!, refund_amount: '10.00' });
    deps.clock.advance(61);
    await processDueRefunds(deps);
    await createRefund(deps, m.merchantScope, { payment_id: paid[3]!.payment_id!, refund_amount: '5.00' });
    return m;
  }

  it.each([1, 2, 3, 1000])('settles in batches of %i payments with the same lines and totals as one batch (D112)', async (batchSize) => {
    const m = await merchantWithPayments(`psb${batchSize}`);
    const batches: number[] = [];
    const ids = await runSettlements(deps, m.partnerScope, { batchSize, onBatch: ({ lines }) => void batches.push(lines) });
    expect(ids).toHaveLength(2);
    expect(batches.length).toBe(Math.ceil(5 / batchSize) + Math.ceil(2 / batchSize) - (batchSize >= 7 ? 1 : 0));
    const { lines, settlements } = await linesOf(m.merchantId);
    expect(lines.map((l) => l.settlement_type)).toEqual([
      'capture',
      'capture',
      'capture',
      'capture',
      'refund_reserve',
      'capture',
      'capture',
      'capture',
    ]);
    // positions run 0..n-1 in each settlement, and number_of_transactions is exact
    for (const s of settlements) {
      const own = lines.filter((l) => l.settlement_id === s.id);
      expect(own.map((l) => l.position)).toEqual(own.map((_, i) => i));
      expect(s).toMatchObject({
        status: 'completed',
        number_of_transactions: own.length,
        net_minor: own.reduce((a, l) => a + l.net_minor, 0),
      });
    }
    // INR: 511.25 less fees 10.25 and taxes 1.85 (each rounded half up per line), the processed 10.00 and the reserved 5.00
    expect(settlements.map((s) => s.net_minor)).toEqual([51125 - 1025 - 185 - 1000 - 500, 4003]);
  });

  it('a run interrupted between batches leaves an open settlement nobody sees; the next run completes it, each line once (D112)', async () => {
    const m = await merchantWithPayments('psresume');
    let seen = 0;
    await expect(
      runSettlements(deps, m.merchantScope, {
        batchSize: 2,
        onBatch: () => {
          if (++seen === 2) throw new Error('crash after the second batch');
        },
      }),
    ).rejects.toThrow('crash after the second batch');
    const partial = await linesOf(m.merchantId);
    expect(partial.settlements).toEqual([expect.objectContaining({ status: 'open', number_of_transactions: 5 })]); // 4 captures, 1 reserve
    await expect(getSettlement(deps, m.merchantScope, partial.settlements[0]!.id)).rejects.toMatchObject({ code: 'ERR_SETTLEMENT_404' });
    expect((await listSettlements(deps, m.merchantScope)).count).toBe(0);
    const payment = await getPayment(deps, m.merchantScope, partial.lines[0]!.payment_id);
    expect(payment.settlement).toBeNull(); // its settlement appears when it is complete

    const ids = await runSettlements(deps, m.merchantScope, { batchSize: 2 });
    expect(ids).toHaveLength(2);
    expect(ids).toContain(partial.settlements[0]!.id); // the open one, carried on
    const { lines, settlements } = await linesOf(m.merchantId);
    const captures = lines.filter((l) => l.settlement_type === 'capture').map((l) => l.payment_id);
    expect(captures).toHaveLength(7);
    expect(new Set(captures).size).toBe(7);
    expect(settlements.map((s) => [s.status, s.number_of_transactions])).toEqual([
      ['completed', 6],
      ['completed', 2],
    ]);
    expect(settlements.map((s) => s.net_minor)).toEqual([51125 - 1025 - 185 - 1000 - 500, 4003]);
    expect((await getPayment(deps, m.merchantScope, partial.lines[0]!.payment_id)).settlement?.number_of_transactions).toBe(6);
    expect(await runSettlements(deps, m.merchantScope)).toEqual([]);
  });

  it('embeds the first lines and pages through every line at /transactions by position (D113)', async () => {
    const m = await merchantWithPayments('pspage');
    const [inrId] = await runSettlements(deps, m.partnerScope);
    const s = await getSettlement(deps, m.merchantScope, inrId!);
    expect(s.number_of_transactions).toBe(6);
    expect(s.transactions).toHaveLength(6);
    const pages = [1, 2, 3, 4].map((page) => listSettlementTransactions(deps, m.merchantScope, inrId!, { page, page_size: 2 }));
    const got = await Promise.all(pages);
    expect(got.map((p) => [p.count, p.results.length])).toEqual([
      [6, 2],
      [6, 2],
      [6, 2],
      [6, 0],
    ]);
    expect(got.flatMap((p) => p.results)).toEqual(s.transactions);
    const other = await approvedMerchant(deps, { partnerId: 'pspage-other' });
    await expect(listSettlementTransactions(deps, other.merchantScope, inrId!)).rejects.toMatchObject({ code: 'ERR_SETTLEMENT_404' });
  });
});
