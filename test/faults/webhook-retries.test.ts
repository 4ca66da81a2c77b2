/**
 * Webhook receivers that are down, slow (beyond the 10 s delivery timeout) or answer 500 get retries on the
 * configured schedule (shortened to 1 s steps with PAYGATE_WEBHOOK_RETRY_SCHEDULE), delivery succeeds once they
 * recover, a receiver that never recovers is given up on after the last step, every attempt is recorded, and a slow
 * receiver does not hold back the retries of other endpoints.
 * Gateway: in-process on PostgreSQL with its background worker polling every 100 ms. Registered only when
 * PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../support/gateway.js';
import { clientFor, expectOk, onboardMerchant, paidOrder, sleep, waitFor } from './helpers/api.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';
import { freePort, startReceiver, type Delivery, type Receiver } from './helpers/receiver.js';

const SCHEDULE = [1, 1, 1, 1];
/** The gateway's fixed delivery timeout (worker/deliveries.ts DELIVERY_TIMEOUT_MS; not configurable). */
const DELIVERY_TIMEOUT_MS = 10_000;

interface AttemptRow {
  url: string;
  delivery_status: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  started_at: string;
  duration_ms: number | null;
}

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/webhook-retries.test.ts (down / slow / 500 webhook receivers and the retry schedule)');
} else {
  describe('webhook delivery retries against failing receivers', () => {
    let gw: Gateway;
    const receivers: Receiver[] = [];

    beforeAll(async () => {
      gw = await startGateway({
        target: 'postgres',
        startWorker: true,
        env: { PAYGATE_WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','), PAYGATE_WORKER_INTERVAL_MS: '100' },
      });
    });
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await gw?.close();
    });

    const attemptsOf = async (url: string): Promise<AttemptRow[]> => {
      const runtime = gw.runtime;
      if (!runtime) throw new Error('needs the in-process gateway');
      const { rows } = await runtime.db.query<AttemptRow>(
        `SELECT w.url, d.status AS delivery_status, a.attempt, a.status_code, a.error, a.started_at, a.duration_ms
         FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE w.url = $1 ORDER BY a.attempt`,
        [url],
      );
      return rows;
    };

    /**
     * A merchant with its own webhook endpoints (merchant credentials, PAYMENT_FAILED) for `urls`; returns the secrets
     * by URL and a function producing one PAYMENT_FAILED event (a failed hosted checkout) for that merchant only.
     */
    async function merchantWithEndpoints(brand: string, urls: string[]) {
      const merchant = await onboardMerchant(gw.baseUrl, clientFor(gw.baseUrl, gw.partner), brand);
      const secrets = new Map<string, string>();
      for (const url of urls) {
        const ep = expectOk(
          'createWebhookEndpoint',
          await merchant.client.webhooks.createEndpoint({ url, events: ['PAYMENT_FAILED'] }),
        ).data;
        expect(ep.url).toBe(url);
        secrets.set(url, ep.secret);
      }
      return { merchant, secret: (url: string) => secrets.get(url) ?? '', fail: () => paidOrder(merchant, 'failure') };
    }

    /** All requests carry one webhook-id (msg_ + sequence_number), valid signatures and the PAYMENT_FAILED event of `orderId`. */
    function expectSameSignedEvent(deliveries: Delivery[], orderId: string): void {
      expect(deliveries.length).toBeGreaterThan(0);
      expect(
        deliveries.every((d) => d.verified),
        'signatures verify with each endpoint secret',
      ).toBe(true);
      const ids = new Set(deliveries.map((d) => d.webhookId));
      expect(ids.size, 'webhook-id is stable across retries and endpoints').toBe(1);
      const payload = deliveries[0]?.payload as { event_type: string; sequence_number: string; data: { order_id: string } };
      expect(payload.event_type).toBe('PAYMENT_FAILED');
      expect(payload.data.order_id).toBe(orderId);
      expect([...ids][0]).toBe(`msg_${payload.sequence_number}`);
    }

    /**
     * Gaps between consecutive requests a receiver saw: never shorter than one schedule step (1 s -10% jitter), and
     * not piled up: under 5 s (a step plus polling plus room for a busy machine; the lower bound is the property).
     */
    function expectScheduleGaps(r: Receiver, what: string): void {
      const gaps = r.deliveries.slice(1).map((d, i) => d.receivedAt - (r.deliveries[i]?.receivedAt ?? 0));
      for (const gap of gaps) {
        expect(gap, `${what}: retry gap (ms) after a 1 s schedule step`).toBeGreaterThanOrEqual(850);
        expect(gap, `${what}: retry gap (ms) after a 1 s schedule step`).toBeLessThan(5_000);
      }
    }

    it('down and 500 receivers are retried on the schedule until they recover; a dead one is given up; attempts are recorded', async () => {
      const failing = await startReceiver({ behaviour: (d) => ({ status: d.seen <= 2 ? 500 : 204 }) });
      const dead = await startReceiver({ behaviour: () => ({ status: 503 }) });
      receivers.push(failing, dead);
      const downPort = await freePort(); // nothing listens here until the receiver "comes back"
      const downUrl = `http://127.0.0.1:${downPort}/webhooks`;
      const setup = await merchantWithEndpoints('RetryShop', [failing.url, dead.url, downUrl]);
      failing.setSecret(setup.secret(failing.url));
      dead.setSecret(setup.secret(dead.url));

      const { orderId } = await setup.fail();
      // The down receiver comes back once two attempts were refused (an event, not a wall-clock guess: on a busy
      // machine the first attempt can come later than any fixed delay); a later attempt succeeds.
      await waitFor(
        'two refused attempts at the down receiver',
        async () => ((await attemptsOf(downUrl)).filter((r) => r.error).length >= 2 ? true : undefined),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const down = await startReceiver({ port: downPort, secret: setup.secret(downUrl) });
      receivers.push(down);

      await waitFor('the 500 receiver to accept', () => (failing.acceptedIds().size > 0 ? true : undefined), { timeoutMs: 30_000 });
      await waitFor('the down receiver to accept after it came back', () => (down.acceptedIds().size > 0 ? true : undefined), {
        timeoutMs: 30_000,
      });
      await waitFor(
        'the dead receiver to be given up on',
        async () => ((await attemptsOf(dead.url))[0]?.delivery_status === 'failed' ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      await sleep(1_500); // a stray extra attempt would show up now

      expectSameSignedEvent([...failing.deliveries, ...dead.deliveries, ...down.deliveries], orderId);

      // 500 receiver: 500, 500, then 204, one schedule step apart; recorded as attempts 1..3.
      expect(failing.deliveries.map((d) => d.answered)).toEqual([500, 500, 204]);
      expectScheduleGaps(failing, '500 receiver');
      const failingRows = await attemptsOf(failing.url);
      expect(failingRows.map((r) => [r.attempt, r.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 204],
      ]);
      expect(failingRows.every((r) => r.delivery_status === 'succeeded')).toBe(true);

      // Down receiver: refused attempts (no status code, an error) until it came back, then exactly one success.
      const downRows = await attemptsOf(downUrl);
      expect(downRows.length).toBeGreaterThanOrEqual(2);
      expect(downRows.length).toBeLessThanOrEqual(SCHEDULE.length + 1);
      expect(downRows.map((r) => r.attempt)).toEqual(downRows.map((_, i) => i + 1));
      expect(downRows[downRows.length - 1]?.status_code).toBe(204);
      for (const r of downRows.slice(0, -1)) {
        expect(r.status_code).toBeNull();
        expect(r.error).toBeTruthy();
      }
      expect(downRows.every((r) => r.delivery_status === 'succeeded')).toBe(true);
      expect(down.deliveries).toHaveLength(1);

      // Dead receiver: the first attempt plus one per schedule step, then given up: no further requests.
      const deadRows = await attemptsOf(dead.url);
      expect(deadRows.map((r) => r.status_code)).toEqual(Array(SCHEDULE.length + 1).fill(503));
      expect(deadRows.every((r) => r.delivery_status === 'failed')).toBe(true);
      expect(dead.deliveries).toHaveLength(SCHEDULE.length + 1);
      expectScheduleGaps(dead, 'dead receiver');
    }, 120_000);

    it('a receiver slower than the delivery timeout is cut off, recorded, retried, and does not hold back other endpoints', async () => {
      const slow = await startReceiver({
        behaviour: (d) => (d.seen === 1 ? { status: 204, delayMs: DELIVERY_TIMEOUT_MS + 2_000 } : { status: 204 }),
      });
      const bystander = await startReceiver({ behaviour: (d) => ({ status: d.seen <= 2 ? 500 : 204 }) });
      receivers.push(slow, bystander);
      const setup = await merchantWithEndpoints('SlowShop', [slow.url, bystander.url]);
      slow.setSecret(setup.secret(slow.url));
      bystander.setSecret(setup.secret(bystander.url));

      const { orderId } = await setup.fail();
      await waitFor('the slow receiver to accept a retry after the timeout', () => (slow.acceptedIds().size > 0 ? true : undefined), {
        timeoutMs: DELIVERY_TIMEOUT_MS + 10_000,
      });
      await waitFor('the bystander to accept', () => (bystander.acceptedIds().size > 0 ? true : undefined), { timeoutMs: 20_000 });
      await sleep(1_000);

      expectSameSignedEvent([...slow.deliveries, ...bystander.deliveries], orderId);
      // Slow receiver: the first attempt is cut at the timeout and recorded as such; the retry succeeds.
      expect(slow.deliveries).toHaveLength(2);
      const slowGap = (slow.deliveries[1]?.receivedAt ?? 0) - (slow.deliveries[0]?.receivedAt ?? 0);
      expect(slowGap).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS);
      expect(slowGap).toBeLessThan(DELIVERY_TIMEOUT_MS + 5_000);
      const slowRows = await attemptsOf(slow.url);
      expect(slowRows.map((r) => [r.attempt, r.status_code])).toEqual([
        [1, null],
        [2, 204],
      ]);
      expect(slowRows[0]?.error ?? '').toMatch(/timeout/i);
      expect(slowRows.every((r) => r.delivery_status === 'succeeded')).toBe(true);

      // The other endpoint of the same event keeps its own schedule while the slow one is being waited for.
      expect(bystander.deliveries.map((d) => d.answered)).toEqual([500, 500, 204]);
      expectScheduleGaps(bystander, 'endpoint sharing a worker pass with a slow receiver');
    }, 120_000);
  });
}
