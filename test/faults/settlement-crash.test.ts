/**
 * A settlement run in batches (PAYGATE_SETTLEMENT_BATCH_SIZE=100) over 6,000 captured payments, seeded through SQL,
 * is cut by kill -9 of `paygate serve` after some batches committed; a new process on the same PostgreSQL database runs
 * again and completes the settlement the first one left open: every payment has exactly one capture line, the lines
 * are numbered without gap, the totals add up to the payments, and PAYMENT_SETTLED announces it once (D112 settlement runs in batches of 1,000 payments).
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, onboardMerchant, waitFor } from './helpers/api.js';
import {
  adminDatabaseUrl,
  createTestDatabase,
  ensureBuilt,
  killAllGateways,
  partnerCredentials,
  queryDb,
  reportNotRun,
  spawnGateway,
  type TestDatabase,
} from './helpers/processes.js';
import { seedCapturedPayments } from '../../packages/reference/src/testing/seed-payments.js';

const PAYMENTS = 6000;

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/settlement-crash.test.ts (kill -9 during a batched settlement run, then resume)');
} else {
  describe('settlement run interrupted by kill -9', () => {
    let db: TestDatabase | undefined;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
    }, 120_000);
    afterAll(async () => {
      await killAllGateways();
      await db?.drop();
    });

    it('resumes the open settlement without a missing or double-counted line', async () => {
      if (!db) throw new Error('setup failed');
      const url = db.url;
      const env = { PAYGATE_SETTLEMENT_BATCH_SIZE: '100' };
      const first = await spawnGateway({ name: 'settling-before-crash', databaseUrl: url, partner, env });
      const merchant = await onboardMerchant(first.baseUrl, clientFor(first.baseUrl, partner), 'Batch');
      await seedCapturedPayments(url, merchant.merchantId, PAYMENTS);
      const run = (baseUrl: string) =>
        fetch(`${baseUrl}/sandbox/settlements/run`, {
          method: 'POST',
          headers: {
            'X-Client-ID': merchant.credentials.clientId,
            'X-Client-Secret': merchant.credentials.clientSecret,
            'Content-Type': 'application/json',
          },
          body: '{}',
        });
      const cut = run(first.baseUrl).then(
        (res) => res.status,
        () => 'no answer',
      );
      const open = await waitFor(
        'a few batches of the run to commit',
        async () => {
          const rows = await queryDb<{ id: string; n: number }>(
            url,
            `SELECT id, number_of_transactions AS n FROM settlements WHERE status = 'open'`,
          );
          return rows[0] && rows[0].n >= 300 ? rows[0] : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 10 },
      );
      await first.kill9();
      expect(await cut).toBe('no answer');

      // What the crash left: an open settlement whose lines, count and payments agree (each batch committed whole).
      const [left] = await queryDb<{ n: number; lines: string; settled: string }>(
        url,
        `SELECT s.number_of_transactions AS n, (SELECT count(*) FROM settlement_transactions t WHERE t.settlement_id = s.id) AS lines,
                (SELECT count(*) FROM payments p WHERE p.settlement_id = s.id) AS settled
         FROM settlements s WHERE s.id = $1 AND s.status = 'open'`,
        [open.id],
      );
      expect(left).toBeDefined();
      expect(left!.n).toBeLessThan(PAYMENTS);
      expect([Number(left!.lines), Number(left!.settled)]).toEqual([left!.n, left!.n]);
      console.info(`settlement-crash: killed after ${left!.n} of ${PAYMENTS} lines were committed`);

      const second = await spawnGateway({ name: 'settling-after-restart', databaseUrl: url, partner, env });
      const res = await run(second.baseUrl);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: { settlements: { settlement_id: string; number_of_transactions: number; transactions: unknown[] }[] };
      };
      expect(body.data.settlements.map((s) => [s.settlement_id, s.number_of_transactions, s.transactions.length])).toEqual([
        [open.id, PAYMENTS, 100],
      ]);

      const [after] = await queryDb<{
        lines: string;
        payments: string;
        max_position: number;
        positions: string;
        gross: string;
        expected: string;
        mismatched: string;
        unsettled: string;
        status: string;
      }>(
        url,
        `SELECT count(*) AS lines, count(DISTINCT t.payment_id) AS payments, max(t.position) AS max_position, count(DISTINCT t.position) AS positions,
                (SELECT gross_minor FROM settlements WHERE id = $1) AS gross,
                (SELECT sum(amount_minor) FROM payments WHERE merchant_id = $2) AS expected,
                count(*) FILTER (WHERE p.settlement_id IS DISTINCT FROM t.settlement_id) AS mismatched,
                (SELECT count(*) FROM payments WHERE merchant_id = $2 AND settlement_id IS NULL) AS unsettled,
                (SELECT status FROM settlements WHERE id = $1) AS status
         FROM settlement_transactions t JOIN payments p ON p.id = t.payment_id WHERE t.settlement_id = $1 AND t.settlement_type = 'capture'`,
        [open.id, merchant.merchantId],
      );
      expect(after).toEqual({
        lines: String(PAYMENTS),
        payments: String(PAYMENTS),
        max_position: PAYMENTS - 1,
        positions: String(PAYMENTS),
        gross: after!.expected,
        expected: after!.expected,
        mismatched: '0',
        unsettled: '0',
        status: 'completed',
      });
      const events = await queryDb<{ n: string }>(
        url,
        `SELECT count(*) AS n FROM events WHERE type = 'PAYMENT_SETTLED' AND merchant_id = $1 AND payload::text LIKE '%' || $2 || '%'`,
        [merchant.merchantId, open.id],
      );
      expect(events[0]?.n).toBe('1');
      await second.stop();
    }, 180_000);
  });
}
