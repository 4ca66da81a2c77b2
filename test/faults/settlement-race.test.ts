/**
 * Settlement runs that race: two connection pools on one PostgreSQL database (what two gateway processes are) start
 * twin runs for the same merchant, round after round, with new captured payments before each round and small batches
 * so the runs interleave (one run's close lands between the other's INSERT ... ON CONFLICT and its SELECT ... FOR
 * UPDATE). Every run must finish (the loser opens the next settlement instead of failing with "vanished", which the
 * API answered as a 500), and the money must be exact: each payment has exactly one capture line, in a completed
 * settlement, and the settlements' gross adds up to the payments.
 * A second case stages the losing interleaving exactly: another run's open settlement, not yet committed, makes this
 * run's INSERT wait; that run commits and closes it (in one round trip, so the close takes the row lock before this
 * run's SELECT can); the run must open a new settlement and finish.
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../packages/reference/src/db/open.js';
import type { Db } from '../../packages/reference/src/db/db.js';
import { createMigratedDatabase, type ThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { seedCapturedPayments } from '../../packages/reference/src/testing/seed-payments.js';
import { runSettlements } from '../../packages/reference/src/settlements/service.js';
import { adminDatabaseUrl, queryDb, reportNotRun } from './helpers/processes.js';
import { waitFor } from './helpers/api.js';

const ROUNDS = 12;
const PER_ROUND = 120;
const BATCH = 7;

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/settlement-race.test.ts (twin settlement runs from two pools)');
} else {
  describe('settlement runs that race', () => {
    let database: ThrowawayDatabase | undefined;
    let first: Db | undefined;
    let second: Db | undefined;

    beforeAll(async () => {
      database = await createMigratedDatabase(adminUrl, 'paygate_settle_race');
      first = await openDb({ databaseUrl: database.url, migrate: true });
      second = await openDb({ databaseUrl: database.url, migrate: false });
    }, 120_000);
    afterAll(async () => {
      await Promise.all([first?.close(), second?.close()]);
      await database?.drop();
    });

    it('twin runs on two pools: every run finishes, every payment is settled exactly once', async () => {
      if (!first || !second || !database) throw new Error('setup failed');
      const a = testDeps(first);
      const b = testDeps(second);
      const m = await approvedMerchant(a, { partnerId: 'race' });
      const failures: string[] = [];
      let settlementsReported = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await seedCapturedPayments(database.url, m.merchantId, PER_ROUND, 1 + round * PER_ROUND);
        const runs = await Promise.allSettled([
          runSettlements(a, m.partnerScope, { batchSize: BATCH }),
          runSettlements(b, m.partnerScope, { batchSize: BATCH }),
        ]);
        for (const r of runs) {
          if (r.status === 'rejected') failures.push(String((r.reason as Error)?.message ?? r.reason));
          else settlementsReported += r.value.length;
        }
      }
      expect(failures).toEqual([]);

      const [money] = await queryDb<{
        payments: string;
        unsettled: string;
        capture_lines: string;
        lines_per_payment_max: string;
        mismatched: string;
        expected: string;
        gross: string;
        open: string;
        completed: string;
        counts_off: string;
      }>(
        database.url,
        `SELECT (SELECT count(*) FROM payments WHERE merchant_id = $1) AS payments,
                (SELECT count(*) FROM payments WHERE merchant_id = $1 AND settlement_id IS NULL) AS unsettled,
                (SELECT count(*) FROM settlement_transactions t WHERE t.settlement_type = 'capture') AS capture_lines,
                (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM settlement_transactions GROUP BY payment_id) x) AS lines_per_payment_max,
                (SELECT count(*) FROM settlement_transactions t JOIN payments p ON p.id = t.payment_id
                  WHERE p.settlement_id IS DISTINCT FROM t.settlement_id) AS mismatched,
                (SELECT sum(amount_minor) FROM payments WHERE merchant_id = $1) AS expected,
                (SELECT sum(gross_minor) FROM settlements WHERE merchant_id = $1) AS gross,
                (SELECT count(*) FROM settlements WHERE status = 'open') AS open,
                (SELECT count(*) FROM settlements WHERE status = 'completed') AS completed,
                (SELECT count(*) FROM settlements s WHERE s.number_of_transactions <>
                   (SELECT count(*) FROM settlement_transactions t WHERE t.settlement_id = s.id)) AS counts_off`,
        [m.merchantId],
      );
      expect(money).toEqual({
        payments: String(ROUNDS * PER_ROUND),
        unsettled: '0',
        capture_lines: String(ROUNDS * PER_ROUND),
        lines_per_payment_max: '1',
        mismatched: '0',
        expected: money!.expected,
        gross: money!.expected,
        open: '0',
        completed: money!.completed,
        counts_off: '0',
      });
      // what the runs reported is what exists: no settlement closed twice, none closed unseen
      expect(settlementsReported).toBe(Number(money!.completed));
      // the twins did race: more than one settlement in some round
      console.info(`settlement-race: ${ROUNDS} rounds, ${money!.completed} settlements, ${ROUNDS * PER_ROUND} payments`);
    }, 180_000);

    it('a run whose open settlement was closed under it by another run opens the next one', async () => {
      if (!first || !database) throw new Error('setup failed');
      const url = database.url;
      const m = await approvedMerchant(testDeps(first), { partnerId: 'race_staged' });
      await seedCapturedPayments(url, m.merchantId, 5, 1_000_000);
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        // the other run's open settlement, not committed yet: invisible to this run's SELECT, in the way of its INSERT
        await other.query('BEGIN');
        await other.query(
          `INSERT INTO settlements (id, merchant_id, transaction_currency, settlement_currency, forex_rate_cents, forex_rate_num, forex_rate_den,
                                    gross_minor, fee_minor, tax_minor, refunds_minor, reserved_minor, released_minor, net_minor,
                                    settlement_amount_cents, utr_number, completed_at, created_at, status, number_of_transactions)
           VALUES ('ST9999999999999999', $1, 'INR', 'INR', 100, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 'RACEUTR00001', now(), now(), 'open', 0)`,
          [m.merchantId],
        );
        // once this run's INSERT ... ON CONFLICT DO NOTHING returned (it met the other run's settlement), the other run
        // closes that settlement before this run's next statement
        let staged = 0;
        const hooked = (tx: Db): Db => ({
          kind: tx.kind,
          query: async <T>(sql: string, params?: readonly unknown[]) => {
            const result = await tx.query<T>(sql, params);
            if (sql.trimStart().startsWith('INSERT INTO settlements ') && staged++ === 0) {
              await queryDb(url, `UPDATE settlements SET status = 'completed' WHERE id = 'ST9999999999999999'`);
            }
            return result;
          },
          exec: (sql) => tx.exec(sql),
          transaction: (fn) => tx.transaction((inner) => fn(hooked(inner))),
          listen: (channel, listener) => tx.listen(channel, listener),
          close: () => tx.close(),
        });
        const run = runSettlements(testDeps(hooked(first)), m.merchantScope).then(
          (ids) => ({ ok: true as const, ids }),
          (err: unknown) => ({ ok: false as const, message: (err as Error).message }),
        );
        await waitFor(
          "this run's INSERT to wait for the other run's open settlement",
          async () => {
            // another connection: pg_stat_activity is read once per transaction, and `other` is in one
            const rows = await queryDb<{ n: string }>(
              url,
              `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                 AND query LIKE 'INSERT INTO settlements%'`,
            );
            return rows[0]?.n === '1' ? true : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 20 },
        );
        await other.query('COMMIT');
        const result = await run;
        expect(staged).toBeGreaterThan(0);
        expect(result).toMatchObject({ ok: true });
        const ids = result.ok ? result.ids : [];
        expect(ids).toHaveLength(1);
        const rows = await queryDb<{ id: string; status: string; n: number; settled: string }>(
          url,
          `SELECT s.id, s.status, s.number_of_transactions AS n,
                  (SELECT count(*) FROM payments p WHERE p.settlement_id = s.id) AS settled
           FROM settlements s WHERE s.merchant_id = $1 ORDER BY s.id`,
          [m.merchantId],
        );
        expect(rows.map((r) => [r.id === ids[0] ? 'new' : r.id, r.status, r.n, r.settled]).sort()).toEqual(
          [
            ['ST9999999999999999', 'completed', 0, '0'],
            ['new', 'completed', 5, '5'],
          ].sort(),
        );
      } finally {
        await other.end();
      }
    }, 120_000);
  });
}
