/**
 * Bounded waits per tenant (D363 tenant share of the database pool) on PostgreSQL: one merchant holds 12 requests waiting on a locked row (its order,
 * locked FOR UPDATE by another session, as a long transaction or a stuck process would). With a pool of 8 those
 * requests would take every connection and every other merchant's requests would wait for one, then fail with 503.
 * With the tenant share, that merchant runs at most its share (6 of 8) and queues the rest; another merchant's reads
 * and writes succeed meanwhile, and the first merchant's requests end as 200 or as a declared 503 with Retry-After,
 * never a 500.
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRuntime } from '../../packages/contract-tests/src/support/gateway.js';
import { dataOf, openPaygate, orderBody, type MerchantAccount, type Paygate } from '../../packages/contract-tests/src/support/paygate.js';
import { waitFor } from './helpers/api.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const POOL = 8;
const WAITING = 12;

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/tenant-share.test.ts (one merchant waiting on locked rows, another served)');
} else {
  describe('one merchant waiting on locked rows does not take the pool (PostgreSQL)', () => {
    let gw: Paygate;
    let a: MerchantAccount;
    let b: MerchantAccount;

    beforeAll(async () => {
      gw = await openPaygate('postgres', { env: { PAYGATE_DB_POOL_SIZE: String(POOL) } });
      a = await gw.onboard();
      b = await gw.onboard();
    }, 120_000);
    afterAll(async () => {
      await gw?.close();
    });

    it("another merchant's reads and writes succeed while 12 requests of one merchant wait on a locked row", async () => {
      const rt = requireRuntime(gw.gw);
      const share = rt.tenantShare;
      expect(share, 'the tenant share is on for PostgreSQL').toBeDefined();
      const created = await gw.createOrder(a.credentials);
      expect(created.status, created.text).toBe(200);
      const orderA = dataOf<{ order_id: string }>(created).order_id;
      const warm = await gw.createOrder(b.credentials); // B's credential verified and cached, as for any active merchant
      expect(warm.status, warm.text).toBe(200);
      const orderB = dataOf<{ order_id: string }>(warm).order_id;

      const databaseUrl = rt.config.databaseUrl as string;
      const locker = new pg.Client({ connectionString: databaseUrl });
      const watcher = new pg.Client({ connectionString: databaseUrl });
      await locker.connect();
      await watcher.connect();
      let aResults: { status: number; retryAfter: string | null; text: string }[] = [];
      try {
        await locker.query('BEGIN');
        await locker.query('SELECT id FROM orders WHERE id = $1 FOR UPDATE', [orderA]);

        // 12 corrections of A's order: each locks the order row, so each waits for the locker
        const aRequests = Array.from({ length: WAITING }, (_, i) =>
          gw
            .call('PATCH', `/pg/orders/${orderA}`, a.credentials, {
              json: { invoice: { number: `INV-${i}`, date: '2026-11-21' } },
              allowServerError: true,
            })
            .then((res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), text: res.text })),
        );
        const tenantA = `merchant:${a.merchantId}`;
        const running = await waitFor(
          "A's requests holding its share, the rest waiting for a slot",
          () => {
            const load = share!.load(tenantA);
            return load.running + load.waiting === WAITING ? load : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 10 },
        );
        expect(running.running).toBeLessThan(POOL);
        await waitFor(
          "A's running requests blocked on the row lock in PostgreSQL",
          async () => {
            const { rows } = await watcher.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            return (rows[0]?.n ?? 0) >= running.running ? true : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 20 },
        );

        // B reads and writes while A's requests hold their share of the pool
        const bWrite = await gw.createOrder(b.credentials, orderBody());
        expect(bWrite.status, bWrite.text).toBe(200);
        const bRead = await gw.call('GET', `/pg/orders/${dataOf<{ order_id: string }>(bWrite).order_id}`, b.credentials);
        expect(bRead.status, bRead.text).toBe(200);
        const bList = await gw.call('GET', '/pg/payments/', b.credentials);
        expect(bList.status, bList.text).toBe(200);
        const bPatch = await gw.call('PATCH', `/pg/orders/${orderB}`, b.credentials, {
          json: { invoice: { number: 'INV-B', date: '2026-11-21' } },
        });
        expect(bPatch.status, bPatch.text).toBe(200);
        await locker.query('COMMIT');
        aResults = await Promise.all(aRequests);
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await locker.end();
        await watcher.end();
      }
      // A's requests: done once the lock went, or refused with the declared 503 (its slot wait is bounded); never a 500
      for (const r of aResults) {
        expect([200, 503], r.text).toContain(r.status);
        if (r.status === 503) expect(r.retryAfter).toBe('1');
      }
      expect(aResults.filter((r) => r.status === 200).length).toBeGreaterThan(0);
      console.info(
        `tenant-share: A ${aResults.filter((r) => r.status === 200).length} x 200, ${aResults.filter((r) => r.status === 503).length} x 503; B served while A held its share`,
      );
    }, 180_000);
  });
}
