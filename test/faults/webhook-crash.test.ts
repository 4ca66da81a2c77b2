/**
 * Webhook delivery under kill -9 (D114 transactional outbox kept over a job queue): 300 events are written to the outbox of one merchant with one endpoint whose
 * receiver answers after 100 ms, so at any moment many deliveries are in flight (256 per process, at most 32 per
 * endpoint). `paygate serve` is killed mid-stream; a new process on the same PostgreSQL database takes over once the
 * killed process's leases expire (the merchant's sandbox clock is moved past the 60 s lease). Every event is
 * delivered at least once, and every request for one event carries the same `webhook-id` (msg_<sequence_number>).
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectOk, onboardMerchant, waitFor } from './helpers/api.js';
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
import { startReceiver, type Receiver } from './helpers/receiver.js';

const EVENTS = 300;

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/webhook-crash.test.ts (kill -9 with deliveries in flight: at least once, one webhook-id per event)');
} else {
  describe('webhook delivery interrupted by kill -9', () => {
    let db: TestDatabase | undefined;
    let receiver: Receiver | undefined;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      receiver = await startReceiver({ behaviour: () => ({ status: 204, delayMs: 100 }) });
    }, 120_000);
    afterAll(async () => {
      await killAllGateways();
      await receiver?.close();
      await db?.drop();
    });

    it('delivers every event at least once, each with one webhook-id, after the deliverer is killed', async () => {
      if (!db || !receiver) throw new Error('setup failed');
      const url = db.url;
      // a poll far apart: only NOTIFY can wake the worker in time
      const first = await spawnGateway({ name: 'delivering-before-crash', databaseUrl: url, partner, workerIntervalMs: 5_000 });
      const partnerClient = clientFor(first.baseUrl, partner);
      const merchant = await onboardMerchant(first.baseUrl, partnerClient, 'Hooks');
      const endpoint = expectOk(
        'createWebhookEndpoint',
        await merchant.client.webhooks.createEndpoint({ url: receiver.url, events: ['PAYMENT_FAILED'] }),
      ).data;
      receiver.setSecret(endpoint.secret);

      const [{ partner_id: partnerId } = { partner_id: '' }] = await queryDb<{ partner_id: string }>(
        url,
        'SELECT partner_id FROM merchants WHERE id = $1',
        [merchant.merchantId],
      );
      const sequences = (
        await queryDb<{ sequence_number: string }>(
          url,
          `INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at)
           SELECT s, 'PAYMENT_FAILED', $1, $2, json_build_object('event_type', 'PAYMENT_FAILED', 'sequence_number', s), now()
           FROM (SELECT gen_random_uuid() AS s FROM generate_series(1, $3)) g RETURNING sequence_number`,
          [partnerId, merchant.merchantId, EVENTS],
        )
      ).map((r) => r.sequence_number);

      await waitFor('a third of the events to arrive', () => (receiver!.acceptedIds().size >= EVENTS / 3 ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 5,
      });
      await first.kill9();
      const statuses = await queryDb<{ status: string; n: string }>(
        url,
        'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
      );
      const delivering = statuses.find((r) => r.status === 'delivering')?.n ?? '0';
      const beforeRestart = receiver.acceptedIds().size;
      console.info(
        `webhook-crash: killed with ${beforeRestart} of ${EVENTS} events accepted and ${delivering} deliveries claimed in flight`,
      );
      expect(Number(delivering), 'deliveries were in flight when the process died (the lease path is exercised)').toBeGreaterThan(0);

      const second = await spawnGateway({ name: 'delivering-after-restart', databaseUrl: url, partner, workerIntervalMs: 100 });
      // the killed process's claims hold for the 60 s lease, on the merchant's clock: move it past the lease
      expectOk(
        'advanceSandboxClock',
        await clientFor(second.baseUrl, partner).sandbox.advanceClock({ seconds: 61, merchant_id: merchant.merchantId }),
      );
      await waitFor('every event to be accepted', () => (receiver!.acceptedIds().size === EVENTS ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 20,
        describeLast: () => `${receiver!.acceptedIds().size} of ${EVENTS}`,
      });

      const expected = new Set(sequences.map((s) => `msg_${s}`));
      expect(receiver.acceptedIds()).toEqual(expected);
      // every request, first or repeated, names its own event: one webhook-id per event, signed
      for (const d of receiver.deliveries) {
        expect(d.verified).toBe(true);
        expect(d.webhookId).toBe(`msg_${(d.payload as { sequence_number: string }).sequence_number}`);
      }
      const repeats = receiver.deliveries.length - expected.size;
      console.info(
        `webhook-crash: ${receiver.deliveries.length} requests for ${EVENTS} events (${repeats} repeated after the crash, at least once)`,
      );
      await waitFor(
        'every delivery recorded as succeeded',
        async () => {
          const rows = await queryDb<{ status: string; n: string }>(
            url,
            'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
          );
          return rows.length === 1 && rows[0]?.status === 'succeeded' && rows[0].n === String(EVENTS) ? true : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      await second.stop();
    }, 180_000);
  });
}
