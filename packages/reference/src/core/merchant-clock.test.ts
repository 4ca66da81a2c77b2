import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCheckoutSession } from '../checkout/service.js';
import { createOrder, getOrder } from '../orders/service.js';
import { getPayment } from '../payments/service.js';
import { createRefund, getRefund } from '../refunds/service.js';
import { runSettlements, getSettlement } from '../settlements/service.js';
import { approvedMerchant, orderInput, paidOrder, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { createWebhookEndpoint } from '../webhooks/endpoints.js';
import { createWorker } from '../worker.js';
import { ManualClock, parseIso } from './clock.js';
import { advanceMerchantClock, merchantNow, readMerchantClock } from './merchant-clock.js';

/**
 * Per-merchant sandbox clocks (D38): moving merchant A's clock moves A's sessions, orders, refunds, s2s collections,
 * settlements and webhook retries, and nothing of merchant B (same partner, same database, same worker).
 */
describe.each(testTargets())('per-merchant sandbox clocks on %s', (target) => {
  let t: TestDb;
  let receiver: Server;
  let receiverUrl: string;
  beforeAll(async () => {
    t = await openTestDb(target);
    // a receiver that always fails, so every delivery waits for its retry
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end()));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await t?.dispose();
  });

  it('advances only forward, by 1 s .. one year, and accumulates', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00Z');
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: `clk-unit-${target}` });
    expect(await readMerchantClock(clock, t.db, m.merchantId)).toEqual({
      merchant_id: m.merchantId,
      now: '2026-11-21T10:00:00.000000Z',
      offset_seconds: 0,
    });
    for (const bad of [0, -5, 1.5, 31_536_001, Number.NaN]) {
      await expect(advanceMerchantClock(clock, t.db, m.merchantId, bad)).rejects.toMatchObject({
        code: 'ERR_VALIDATION_400',
        details: { seconds: 'must be an integer from 1 to 31536000' },
      });
    }
    expect(await advanceMerchantClock(clock, t.db, m.merchantId, 3600)).toEqual({
      merchant_id: m.merchantId,
      now: '2026-11-21T11:00:00.000000Z',
      offset_seconds: 3600,
    });
    expect((await advanceMerchantClock(clock, t.db, m.merchantId, 60)).offset_seconds).toBe(3660);
    clock.advance(10); // the gateway's time runs on under every merchant clock
    expect(await merchantNow(clock, t.db, m.merchantId)).toBe(parseIso('2026-11-21T11:01:10.000000Z'));
    if (target === 'postgres') {
      // another process sees the move at once: offsets are read where they are used, never cached
      const second = await t.openSecond();
      expect(await merchantNow(clock, second, m.merchantId)).toBe(parseIso('2026-11-21T11:01:10.000000Z'));
    }
  });

  it("moving A's clock expires A's sessions, processes A's refunds and collections and makes A's retries due; B does not move", async () => {
    const clock = new ManualClock('2026-11-21T12:00:00Z');
    const deps = testDeps(t.db, clock);
    const a = await approvedMerchant(deps, { partnerId: `clk-iso-${target}`, brand: 'Clock A' });
    const b = await approvedMerchant(deps, { partnerId: `clk-iso-${target}`, brand: 'Clock B' });
    const world = async (m: typeof a) => {
      await createWebhookEndpoint(
        deps,
        m.merchantScope,
        { url: `${receiverUrl}/${m.merchantId}`, events: ['PAYMENT_FAILED'] },
        { allowInsecure: true, allowPrivateDestinations: true },
      );
      const hosted = await createOrder(deps, m.merchantId, orderInput(), { isTesting: true });
      if (hosted.kind !== 'hosted') throw new Error('expected a hosted order');
      const paid = await paidOrder(deps, m.merchantId);
      const refund = await createRefund(deps, m.merchantScope, { payment_id: paid.payment_id!, refund_amount: '1.00' });
      const collect = await createOrder(
        deps,
        m.merchantId,
        orderInput({ collection_mode: 's2s', mop_type: 'UPI', upi_flow_type: 'collection', vpa: 'success@paygate' }),
        { isTesting: true },
      );
      await paidOrder(deps, m.merchantId, {}, 'failure'); // PAYMENT_FAILED: its delivery fails (503) and waits for the retry
      return { hosted, paymentId: paid.payment_id!, refundId: refund.refund_id, collectOrderId: collect.order_id };
    };
    const wa = await world(a);
    const wb = await world(b);
    const worker = createWorker({
      deps,
      retrySchedule: [600, 600],
      jitter: 0,
      sandbox: true,
      deliveryTimeoutMs: 2000,
      allowPrivateDestinations: true,
    });
    try {
      const first = await worker.tick();
      expect(first.deliveries).toEqual({ succeeded: 0, retry: 2, failed: 0 }); // one failed first attempt each

      // 10 s on A's clock: A's success@paygate collection completes (after 5 s); nothing else is due
      await advanceMerchantClock(clock, t.db, a.merchantId, 10);
      const early = await worker.tick();
      expect([early.expiredOrders, early.processedRefunds, early.completedCollections]).toEqual([0, 0, 1]);
      expect(early.deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 });
      // 16 more minutes on A's clock: A's session expires, A's refund is processed, A's retry (due at +600 s) is sent
      await advanceMerchantClock(clock, t.db, a.merchantId, 16 * 60);
      const report = await worker.tick();
      expect([report.expiredOrders, report.processedRefunds, report.completedCollections]).toEqual([1, 1, 0]);
      expect(report.deliveries).toEqual({ succeeded: 0, retry: 1, failed: 0 });

      // A
      await expect(getCheckoutSession(deps, wa.hosted.session_id)).rejects.toMatchObject({
        code: 'ERR_AUTH_000',
        details: { session_id: 'has expired; create a new order' },
      });
      expect((await getOrder(deps, a.merchantScope, wa.hosted.order_id)).status).toBe('payment_cancelled');
      const refundA = await getRefund(deps, a.merchantScope, wa.refundId);
      expect(refundA.refund_status).toBe('PROCESSED');
      expect(refundA.refunded_at).toBe('2026-11-21T12:16:10.000000Z'); // on A's clock
      expect((await getOrder(deps, a.merchantScope, wa.collectOrderId)).status).toBe('payment_successful');
      // B
      const page = await getCheckoutSession(deps, wb.hosted.session_id);
      expect(parseIso(page.expires_at) - page.now).toBe(15 * 60 * 1_000_000);
      expect((await getOrder(deps, b.merchantScope, wb.hosted.order_id)).status).toBe('payment_pending');
      expect((await getRefund(deps, b.merchantScope, wb.refundId)).refund_status).toBe('INITIATED');
      expect((await getOrder(deps, b.merchantScope, wb.collectOrderId)).status).toBe('payment_pending');
      const attempts = await t.db.query<{ merchant_id: string; attempts: number; next_attempt_at: string }>(
        `SELECT e.merchant_id, d.attempt AS attempts, d.next_attempt_at FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id
         WHERE e.merchant_id = ANY($1::text[]) ORDER BY d.attempt DESC`,
        [[a.merchantId, b.merchantId]],
      );
      expect(attempts.rows.map((r) => [r.merchant_id, r.attempts])).toEqual([
        [a.merchantId, 2],
        [b.merchantId, 1],
      ]);
      // A's next retry is scheduled on A's clock: 600 s after A's now
      expect(attempts.rows[0]?.next_attempt_at).toBe('2026-11-21T12:26:10.000000Z');

      // settlements of A are dated on A's clock, B's on the gateway's
      const [settledA] = await runSettlements(deps, a.merchantScope);
      const [settledB] = await runSettlements(deps, b.merchantScope);
      expect((await getSettlement(deps, a.merchantScope, settledA!)).settlement_completed_date).toBe('2026-11-21T12:16:10.000000Z');
      expect((await getSettlement(deps, b.merchantScope, settledB!)).settlement_completed_date).toBe('2026-11-21T12:00:00.000000Z');
      expect((await getPayment(deps, b.merchantScope, wb.paymentId)).settlement?.id).toBe(settledB);

      // B catches up on its own clock
      await advanceMerchantClock(clock, t.db, b.merchantId, 10);
      expect((await worker.tick()).completedCollections).toBe(1);
      await advanceMerchantClock(clock, t.db, b.merchantId, 16 * 60);
      const later = await worker.tick();
      expect([later.expiredOrders, later.processedRefunds, later.deliveries.retry]).toEqual([1, 1, 1]);
    } finally {
      await worker.flush();
    }
  });
});
