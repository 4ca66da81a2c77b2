/**
 * Races over HTTP against the reference gateway on PostgreSQL (real concurrent transactions; PGlite serialises
 * everything, so these only mean something on PostgreSQL). Registered only when PAYGATE_TEST_DATABASE_URL is set.
 *
 * - 50 concurrent refunds of one payment: the sum of non-failed refunds never exceeds the captured amount and every
 *   request gets a definite answer (200 or 422 ERR_REFUND_422).
 * - 10 concurrent completions of one checkout session: exactly one wins, the others get 401 ERR_AUTH_000.
 * - 20 concurrent retries of one order creation with the same Idempotency-Key: exactly one order; every other answer
 *   is a replay (same body, `Idempotent-Replayed: true`) or 409 ERR_IDEMPOTENCY_409.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../support/gateway.js';
import {
  clientFor,
  createHostedOrder,
  expectOk,
  onboardMerchant,
  orderRequest,
  paidOrder,
  sleep,
  type MerchantAccess,
} from './helpers/api.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

/** Integer minor units from a two-decimal amount (string or JSON number), by string parsing. */
function minor(amount: string | number): number {
  const text = typeof amount === 'number' ? amount.toFixed(2) : amount;
  const m = /^(\d+)\.(\d{2})$/.exec(text);
  if (!m) throw new Error(`not a two-decimal amount: ${text}`);
  return Number(m[1]) * 100 + Number(m[2]);
}

function major(minorUnits: number): string {
  return `${Math.floor(minorUnits / 100)}.${String(minorUnits % 100).padStart(2, '0')}`;
}

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/races.test.ts (concurrent refunds, concurrent idempotent order creation)');
} else {
  describe('races on PostgreSQL over HTTP', () => {
    let gw: Gateway;

    beforeAll(async () => {
      gw = await startGateway({ target: 'postgres' });
    });
    afterAll(async () => {
      await gw?.close();
    });

    const partner = () => clientFor(gw.baseUrl, gw.partner);

    /** A captured payment of `amount`: returns its id. */
    async function capturedPayment(merchant: MerchantAccess, amount: string): Promise<string> {
      const { orderId } = await paidOrder(merchant, 'success', { amount });
      const order = expectOk('getOrder', await merchant.client.orders.get(orderId)).data;
      expect(order.status).toBe('payment_successful');
      const payment = order.payments[0];
      expect(payment?.status).toBe('captured');
      if (!payment) throw new Error('no payment on a paid order');
      return payment.payment_id;
    }

    async function listRefunds(merchant: MerchantAccess, paymentId: string) {
      const page = expectOk('listRefunds', await merchant.client.refunds.list({ payment_id: paymentId, page_size: 250 }));
      expect(page.count).toBe(page.results.length);
      return page.results;
    }

    it('50 concurrent equal refunds: exactly floor(captured / amount) succeed, the rest get 422 ERR_REFUND_422', async () => {
      const merchant = await onboardMerchant(gw.baseUrl, partner(), 'RaceRefundsA');
      const paymentId = await capturedPayment(merchant, '100.00');

      const results = await Promise.all(
        Array.from({ length: 50 }, () => merchant.client.refunds.create({ payment_id: paymentId, refund_amount: '7.00' })),
      );
      const statuses = results.map((r) => r.status);
      expect(
        statuses.every((s) => s === 200 || s === 422),
        `statuses: ${JSON.stringify(statuses)}`,
      ).toBe(true);
      for (const r of results) {
        if (!r.ok) {
          expect(r.error.error.code).toBe('ERR_REFUND_422');
          expect(r.error.error.details).toHaveProperty('refund_amount');
        }
      }
      const created = results.flatMap((r) => (r.ok ? [r.data.data] : []));
      // 14 x 7.00 = 98.00 <= 100.00 < 15 x 7.00
      expect(created).toHaveLength(14);
      expect(created.every((r) => r.refund_status === 'INITIATED' && r.payment_id === paymentId)).toBe(true);
      expect(new Set(created.map((r) => r.refund_id)).size).toBe(14);

      const listed = await listRefunds(merchant, paymentId);
      expect(listed.map((r) => r.refund_id).sort()).toEqual(created.map((r) => r.refund_id).sort());
      const sum = listed.filter((r) => r.refund_status !== 'FAILED').reduce((acc, r) => acc + minor(r.refund_amount), 0);
      expect(sum).toBe(9_800);
      expect(sum).toBeLessThanOrEqual(10_000);
    });

    it('50 concurrent refunds of mixed amounts never over-refund, and the remainder is exactly refundable afterwards', async () => {
      const merchant = await onboardMerchant(gw.baseUrl, partner(), 'RaceRefundsB');
      const captured = 25_000; // 250.00
      const paymentId = await capturedPayment(merchant, major(captured));
      const amounts = ['0.01', '13.37', '25.00', '40.00', '99.99'];

      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          merchant.client.refunds.create({ payment_id: paymentId, refund_amount: amounts[i % amounts.length] ?? '1.00' }),
        ),
      );
      expect(
        results.every((r) => r.status === 200 || r.status === 422),
        JSON.stringify(results.map((r) => r.status)),
      ).toBe(true);
      const accepted = results.flatMap((r) => (r.ok ? [r.data.data] : []));
      const acceptedSum = accepted.reduce((acc, r) => acc + minor(r.refund_amount), 0);
      expect(acceptedSum).toBeLessThanOrEqual(captured);

      const listed = await listRefunds(merchant, paymentId);
      expect(listed).toHaveLength(accepted.length);
      const listedSum = listed.filter((r) => r.refund_status !== 'FAILED').reduce((acc, r) => acc + minor(r.refund_amount), 0);
      expect(listedSum).toBe(acceptedSum);

      // The accounting is exact: one cent more than the remainder is refused, the remainder itself is accepted.
      const remaining = captured - listedSum;
      const over = await merchant.client.refunds.create({ payment_id: paymentId, refund_amount: major(remaining + 1) });
      expect(over.status).toBe(422);
      if (remaining > 0) {
        const rest = await merchant.client.refunds.create({ payment_id: paymentId, refund_amount: major(remaining) });
        expect(rest.status, JSON.stringify(rest.ok ? rest.data : rest.error)).toBe(200);
      }
      const final = await listRefunds(merchant, paymentId);
      expect(final.filter((r) => r.refund_status !== 'FAILED').reduce((acc, r) => acc + minor(r.refund_amount), 0)).toBe(captured);
    });

    it('10 concurrent completions of one checkout session (double submit, two tabs): exactly one wins', async () => {
      const merchant = await onboardMerchant(gw.baseUrl, partner(), 'RaceSession');
      const { orderId, sessionId } = await createHostedOrder(merchant, { amount: '42.00' });
      const outcomes = ['success', 'failure', 'cancel'] as const;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          merchant.client.sandbox.completeCheckoutSession(sessionId, {
            outcome: outcomes[i % outcomes.length] ?? 'success',
            mop_type: 'UPI',
          }),
        ),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
      for (const r of results) {
        if (!r.ok) {
          expect(r.status).toBe(401);
          expect(r.error.error.code).toBe('ERR_AUTH_000');
          expect(r.error.error.details).toHaveProperty('session_id');
        }
      }
      const winner = winners[0];
      if (!winner?.ok) throw new Error('no winner');
      const fields = winner.data.data.redirect.fields;
      const order = expectOk('getOrder', await merchant.client.orders.get(orderId)).data;
      expect(order.status).toBe(fields.status);
      expect(order.payments).toHaveLength(fields.status === 'payment_cancelled' ? 0 : 1);
    });

    it('20 concurrent retries of one order creation with the same Idempotency-Key create exactly one order', async () => {
      const merchant = await onboardMerchant(gw.baseUrl, partner(), 'RaceIdempotency');
      const key = `order-${randomUUID()}`;
      const body = orderRequest({ amount: '321.00' });

      // Staggered over ~100 ms so some retries arrive while the first is in flight and some after it finished.
      const results = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await sleep(i < 10 ? 0 : (i - 9) * 10);
          return merchant.client.orders.create(body, { headers: { 'Idempotency-Key': key } });
        }),
      );
      const statuses = results.map((r) => r.status);
      expect(
        statuses.every((s) => s === 200 || s === 409),
        `statuses: ${JSON.stringify(statuses)}`,
      ).toBe(true);
      const successes = results.filter((r) => r.ok);
      expect(successes.length).toBeGreaterThanOrEqual(1);
      const originals = successes.filter((r) => r.response.headers.get('Idempotent-Replayed') !== 'true');
      expect(originals).toHaveLength(1);
      const first = successes[0]?.ok ? successes[0].data : undefined;
      // Same body = same JSON value (replays come from storage, so key order may differ from the original's).
      for (const r of successes) expect(r.ok && r.data).toEqual(first);
      console.info(
        `idempotency race: ${successes.length} x 200 (${successes.length - 1} replayed), ${results.length - successes.length} x 409`,
      );
      for (const r of results) {
        if (!r.ok) expect(r.error.error.code).toBe('ERR_IDEMPOTENCY_409');
      }

      // Exactly one order row for that reference (the database is the ground truth).
      const runtime = gw.runtime;
      if (!runtime) throw new Error('needs the in-process gateway');
      const { rows } = await runtime.db.query<{ n: string | number }>('SELECT count(*) AS n FROM orders WHERE reference_id = $1', [
        body.reference_id,
      ]);
      expect(Number(rows[0]?.n)).toBe(1);

      // A later retry replays the stored answer; the same key with another body is refused.
      const replay = await merchant.client.orders.create(body, { headers: { 'Idempotency-Key': key } });
      expect(replay.status).toBe(200);
      expect(replay.response.headers.get('Idempotent-Replayed')).toBe('true');
      expect(replay.ok && replay.data).toEqual(first);
      const other = await merchant.client.orders.create({ ...body, amount: '322.00' }, { headers: { 'Idempotency-Key': key } });
      expect(other.ok ? other.status : other.error.error.code).toBe('ERR_IDEMPOTENCY_422');
    });

    it('concurrent requests sharing a key but not a body: one order, answers are 200 / 409 ERR_IDEMPOTENCY_409 / 422 ERR_IDEMPOTENCY_422', async () => {
      const merchant = await onboardMerchant(gw.baseUrl, partner(), 'RaceIdempotencyMix');
      const key = `order-${randomUUID()}`;
      const a = orderRequest({ amount: '10.00' });
      const b = { ...a, amount: '11.00' };
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => merchant.client.orders.create(i % 2 === 0 ? a : b, { headers: { 'Idempotency-Key': key } })),
      );
      const winners = results.filter((r) => r.ok && r.response.headers.get('Idempotent-Replayed') !== 'true');
      expect(winners).toHaveLength(1);
      for (const r of results) {
        if (!r.ok) expect(['ERR_IDEMPOTENCY_409', 'ERR_IDEMPOTENCY_422']).toContain(r.error.error.code);
      }
      const runtime = gw.runtime;
      if (!runtime) throw new Error('needs the in-process gateway');
      const { rows } = await runtime.db.query<{ n: string | number }>('SELECT count(*) AS n FROM orders WHERE reference_id = $1', [
        a.reference_id,
      ]);
      expect(Number(rows[0]?.n)).toBe(1);
    });
  });
}
