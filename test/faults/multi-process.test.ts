/**
 * Two gateway PROCESSES (`paygate serve` spawned twice, different ports, one DATABASE_URL) share the webhook queue.
 * Events are produced through both; one receiver collects the deliveries. Every event is delivered, none twice
 * (counted by webhook-id), and both processes' workers took part. Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectOk, onboardMerchant, paidOrder, sleep, waitFor, type MerchantAccess } from './helpers/api.js';
import {
  adminDatabaseUrl,
  createTestDatabase,
  ensureBuilt,
  killAllGateways,
  partnerCredentials,
  queryDb,
  reportNotRun,
  spawnGateway,
  type GatewayProcess,
  type TestDatabase,
} from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

interface EventPayload {
  event_type: string;
  sequence_number: string;
  data: { merchant_id?: string; order_id?: string };
}

/** Worker attempt log lines ("webhook delivery attempt") a gateway process printed. */
function attemptLines(g: GatewayProcess): number {
  return g.output.filter((line) => line.includes('webhook delivery attempt')).length;
}

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/multi-process.test.ts (two processes sharing the webhook queue)');
} else {
  describe('two gateway processes sharing one PostgreSQL database', () => {
    let db: TestDatabase | undefined;
    let receiver: Receiver | undefined;
    let a: GatewayProcess;
    let b: GatewayProcess;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      receiver = await startReceiver({ behaviour: () => ({ status: 204, delayMs: 20 }) });
      // Started together on a fresh database: migrations and the partner seed race too.
      const common = { databaseUrl: db.url, partner, workerIntervalMs: 100, retrySchedule: '1,1,1,1,1' };
      [a, b] = await Promise.all([spawnGateway({ ...common, name: 'gateway-A' }), spawnGateway({ ...common, name: 'gateway-B' })]);
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await receiver?.close();
      await db?.drop();
    });

    it('delivers every event exactly once, by both workers', async () => {
      if (!receiver || !db) throw new Error('setup failed');
      const partnerA = clientFor(a.baseUrl, partner);
      const partnerB = clientFor(b.baseUrl, partner);

      const endpoint = expectOk(
        'createWebhookEndpoint',
        await partnerA.webhooks.createEndpoint({ url: receiver.url, events: ['MERCHANT_APPROVED', 'PAYMENT_FAILED', 'PAYMENT_SETTLED'] }),
      ).data;
      receiver.setSecret(endpoint.secret);

      // Events: 6 merchant approvals (3 through each process) and 36 failed payments (18 through each process).
      const merchants: MerchantAccess[] = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          onboardMerchant((i % 2 === 0 ? a : b).baseUrl, i % 2 === 0 ? partnerA : partnerB, `Shared${i}`),
        ),
      );
      const failedOrders: string[] = [];
      await Promise.all(
        merchants.map(async (m) => {
          for (let k = 0; k < 6; k++) {
            const { orderId } = await paidOrder(m, 'failure', { amount: `${10 + k}.00` });
            failedOrders.push(orderId);
          }
        }),
      );
      const expected = new Set([
        ...merchants.map((m) => `MERCHANT_APPROVED:${m.merchantId}`),
        ...failedOrders.map((o) => `PAYMENT_FAILED:${o}`),
      ]);
      expect(expected.size).toBe(42);

      const delivered = (): Set<string> => {
        const keys = new Set<string>();
        for (const d of receiver?.deliveries ?? []) {
          if (!d.verified || d.answered !== 204) continue;
          const p = d.payload as EventPayload;
          keys.add(`${p.event_type}:${p.event_type === 'MERCHANT_APPROVED' ? p.data.merchant_id : p.data.order_id}`);
        }
        return keys;
      };
      await waitFor('every event to be delivered', () => ([...expected].every((k) => delivered().has(k)) ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 100,
        describeLast: () => `${delivered().size}/${expected.size} delivered`,
      });
      // A few more worker ticks of both processes: a duplicate would show up now.
      await sleep(1_500);

      expect(
        receiver.deliveries.every((d) => d.verified),
        'every delivery carries a valid Standard Webhooks signature',
      ).toBe(true);
      const counts = receiver.acceptedCounts();
      const duplicates = [...counts].filter(([, n]) => n > 1);
      expect(duplicates, 'no webhook-id delivered twice').toEqual([]);
      expect(counts.size).toBe(expected.size);
      expect(receiver.deliveries).toHaveLength(expected.size);
      for (const d of receiver.deliveries) {
        expect(d.webhookId).toBe(`msg_${(d.payload as EventPayload).sequence_number}`);
      }

      // The database agrees: one succeeded delivery per event, one attempt each.
      const rows = await queryDb<{ status: string; attempts: string }>(
        db.url,
        `SELECT d.status, (SELECT count(*) FROM webhook_delivery_attempts x WHERE x.delivery_id = d.id) AS attempts FROM webhook_deliveries d`,
      );
      expect(rows).toHaveLength(expected.size);
      expect(
        rows.every((r) => r.status === 'succeeded' && Number(r.attempts) === 1),
        JSON.stringify(rows.filter((r) => r.status !== 'succeeded' || Number(r.attempts) !== 1)),
      ).toBe(true);

      const byA = attemptLines(a);
      const byB = attemptLines(b);
      console.info(`multi-process: ${expected.size} events, attempts logged by A=${byA}, B=${byB}`);
      expect(byA + byB).toBe(expected.size);
      expect(byA, 'process A delivered some events').toBeGreaterThan(0);
      expect(byB, 'process B delivered some events').toBeGreaterThan(0);
    }, 180_000);
  });
}
