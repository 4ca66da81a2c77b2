/**
 * Graceful shutdown: SIGTERM while order creations are in flight. The process must stop accepting, finish what it
 * accepted, flush the worker and exit 0, and it must never commit an order whose caller got no answer (the opposite of
 * kill -9, where some unanswered creations had committed). Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, onboardMerchant, orderRequest, waitFor, type MerchantAccess } from './helpers/api.js';
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

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/shutdown.test.ts (SIGTERM with requests in flight)');
} else {
  describe('graceful shutdown on PostgreSQL', () => {
    let db: TestDatabase | undefined;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl, 'paygate_shutdown');
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await db?.drop();
    });

    it('finishes accepted requests, answers every order it commits, flushes and exits 0', async () => {
      if (!db) throw new Error('setup failed');
      const gw = await spawnGateway({ name: 'gateway-sigterm', databaseUrl: db.url, partner, workerIntervalMs: 100 });
      const partnerClient = clientFor(gw.baseUrl, partner);
      const merchants: MerchantAccess[] = [];
      for (let i = 0; i < 3; i++) merchants.push(await onboardMerchant(gw.baseUrl, partnerClient, `Shutdown${i}`));

      const answered: { status: number; referenceId: string }[] = [];
      const unanswered: string[] = [];
      let stop = false;
      const streams = Array.from({ length: 9 }, async (_, s) => {
        const merchant = merchants[s % merchants.length]!;
        for (let i = 0; i < 25 && !stop; i++) {
          const body = orderRequest({ amount: `${30 + i}.00` });
          try {
            const r = await merchant.client.orders.create(body, { signal: AbortSignal.timeout(10_000) });
            answered.push({ status: r.status, referenceId: body.reference_id });
          } catch {
            unanswered.push(body.reference_id); // refused or reset: the server had stopped accepting
          }
        }
      });
      await waitFor('orders in flight', () => (answered.length >= 15 ? true : undefined), { timeoutMs: 20_000, intervalMs: 5 });
      gw.proc.kill('SIGTERM');
      const code = await gw.exited;
      stop = true;
      await Promise.all(streams);

      expect(code).toBe(0);
      expect(gw.output.join('\n')).toContain('Stopped.');
      expect(answered.filter((a) => a.status >= 500)).toEqual([]);
      const committed = new Set(
        (await queryDb<{ reference_id: string }>(db.url, 'SELECT reference_id FROM orders')).map((r) => r.reference_id),
      );
      // Every 200 is stored; no stored order was left without its answer.
      for (const a of answered.filter((x) => x.status === 200)) expect(committed.has(a.referenceId)).toBe(true);
      expect(unanswered.filter((ref) => committed.has(ref))).toEqual([]);
      console.log(
        `shutdown: ${answered.length} answered (${answered.filter((a) => a.status === 200).length} x 200), ${unanswered.length} refused after SIGTERM`,
      );
    }, 180_000);
  });
}
