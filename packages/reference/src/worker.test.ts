import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from '@paygate/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvedMerchant, paidOrder, testDeps } from './testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from './testing/test-db.js';
import { createRefund, getRefund } from './refunds/service.js';
import { createWebhookEndpoint, enableWebhookEndpoint, listWebhookEndpoints } from './webhooks/endpoints.js';
import { listWebhookDeliveries, redeliverWebhookDelivery } from './webhooks/delivery-log.js';
import { createSecretBox, generateMasterKey, parseMasterKey } from './core/secret-box.js';
import {
  claimDueDeliveries,
  recordAttempts,
  SECRET_UNAVAILABLE_ERROR,
  type AttemptResult,
  type ClaimedDelivery,
} from './webhooks/deliveries.js';
import { fanOutEvents } from './webhooks/fanout.js';
import { boundedRetryDelayMs, parseRetryAfterMs, retryDelayMs } from './webhooks/retry.js';
import { createAttemptRecorder, createWorker } from './worker.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 whose behaviour per path is set by the test. */
async function startReceiver() {
  const received: Received[] = [];
  const behaviour = new Map<string, (n: number) => number | 'hang'>();
  const retryAfter = new Map<string, () => string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const n = received.filter((r) => r.path === path).length;
      const status = behaviour.get(path)?.(n) ?? 200;
      if (status === 'hang') return; // never answer: the sender must time out
      const after = retryAfter.get(path);
      res.writeHead(status, after ? { 'retry-after': after() } : {}).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    behaviour,
    retryAfter,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const result = (ok: boolean): AttemptResult => ({
  ok,
  statusCode: ok ? 204 : 500,
  error: ok ? null : 'HTTP 500',
  durationMs: 1,
  startedAt: 0,
});

describe('attempt recorder: results that finish together share one write (D114)', () => {
  it.each([
    { finishing: 1, maxBatch: 200, writes: [1] },
    { finishing: 5, maxBatch: 200, writes: [1, 4] },
    { finishing: 50, maxBatch: 200, writes: [1, 49] },
    { finishing: 50, maxBatch: 20, writes: [1, 20, 20, 9] },
  ])(
    '$finishing results, at most $maxBatch per write: writes of $writes, each outcome to its own delivery',
    async ({ finishing, maxBatch, writes }) => {
      const sizes: number[] = [];
      let release = (): void => undefined;
      const firstWrite = new Promise<void>((resolve) => (release = resolve));
      const recorder = createAttemptRecorder(async (items) => {
        sizes.push(items.length);
        if (sizes.length === 1) await firstWrite; // the others finish while the first write is in progress
        return items.map(({ result: r }) => (r.ok ? 'succeeded' : 'retry'));
      }, maxBatch);
      const outcomes = Array.from({ length: finishing }, (_, k) => recorder.record({ id: k } as ClaimedDelivery, result(k % 3 !== 0)));
      release();
      expect(await Promise.all(outcomes)).toEqual(Array.from({ length: finishing }, (_, k) => (k % 3 !== 0 ? 'succeeded' : 'retry')));
      expect(sizes).toEqual(writes);
    },
  );

  it('a failed write rejects exactly the results it carried', async () => {
    const recorder = createAttemptRecorder(() => Promise.reject(new Error('database down')));
    await expect(recorder.record({ id: 1 } as ClaimedDelivery, result(true))).rejects.toThrow('database down');
  });
});

describe('retry schedule', () => {
  it('uses the schedule with +-jitter and gives up after the last delay', () => {
    const schedule = [5, 300, 1800, 7200, 18000, 36000, 36000];
    expect(retryDelayMs(schedule, 1, 0)).toBe(5000);
    expect(retryDelayMs(schedule, 7, 0)).toBe(36_000_000);
    expect(retryDelayMs(schedule, 8, 0)).toBeNull();
    expect(retryDelayMs(schedule, 2, 0.1, () => 0)).toBe(270_000);
    expect(retryDelayMs(schedule, 2, 0.1, () => 1)).toBe(330_000);
  });
});

describe('Retry-After (D79)', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['delay-seconds', '120', 120_000],
    ['zero seconds', '0', 0],
    ['an HTTP date 90 s ahead', 'Sat, 21 Nov 2026 10:01:30 GMT', 90_000],
    ['an HTTP date in the past', 'Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['garbage', 'soon', null],
    ['a negative number', '-5', null],
    ['absent', undefined, null],
  ])('parses %s', (_name, value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });

  const schedule = [5, 300, 1800];
  it.each([
    ['shorter than the schedule: the schedule wins', 5_000, 1_000, 5_000],
    ['between: the receiver wins', 5_000, 60_000, 60_000],
    ['beyond the largest delay: capped at it', 5_000, 86_400_000, 1_800_000],
    ['no Retry-After: the schedule', 300_000, null, 300_000],
    ['schedule exhausted: still given up', null, 60_000, null],
  ])('bounds the delay when %s', (_name, scheduled, retryAfter, expected) => {
    expect(boundedRetryDelayMs(schedule, scheduled, retryAfter)).toBe(expected);
  });
});

describe.each(testTargets())('worker on %s', (target) => {
  let t: TestDb;
  let deps: ReturnType<typeof testDeps>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await t?.dispose();
  });
  beforeEach(async () => {
    rx.received.length = 0;
    rx.behaviour.clear();
    rx.retryAfter.clear();
    // Each test counts the deliveries of its own pass. A delivery an earlier test left unfinished (on a loaded machine
    // a 204 can miss the 500 ms delivery timeout and be scheduled again) would otherwise be retried, and counted, by a
    // later test's pass once its clock moves past the retry: retired here, as given up.
    await t.db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE status IN ('pending', 'delivering')`);
  });

  const worker = (overrides: Partial<Parameters<typeof createWorker>[0]> = {}) =>
    createWorker({
      deps,
      retrySchedule: [2, 4],
      jitter: 0,
      sandbox: true,
      deliveryTimeoutMs: 500,
      allowPrivateDestinations: true,
      ...overrides,
    });

  it('a pass that loses its database connection fails, is logged, and the next pass runs (D91)', async () => {
    let failing = 3;
    const lostDb = {
      ...deps.db,
      query: (sql: string, params?: readonly unknown[]) =>
        failing-- > 0 ? Promise.reject(new Error('Connection terminated unexpectedly')) : deps.db.query(sql, params),
    } as typeof deps.db;
    const errors: string[] = [];
    let passes = 0;
    let sixPasses!: () => void;
    const kept = new Promise<void>((resolve) => (sixPasses = resolve));
    const w = worker({
      deps: { ...deps, db: lostDb },
      intervalMs: 5,
      beforeTick: async () => {
        if (++passes >= 6) sixPasses();
      },
      logger: { info: () => undefined, warn: () => undefined, error: (_obj, msg) => void errors.push(msg ?? '') },
    });
    w.start();
    try {
      await kept;
    } finally {
      await w.flush();
    }
    expect(errors.filter((m) => m === 'worker pass failed').length).toBeGreaterThan(0);
    expect(passes).toBeGreaterThanOrEqual(6); // it kept polling after the failed passes
    const report = await worker({ deps: { ...deps, db: lostDb } }).tick(); // and a pass on the database that answers again succeeds
    expect(report.deliveries).toBeDefined();
  });

  it('runs settlements on the production schedule, once per interval', async () => {
    deps.clock.set('2026-12-01T00:00:00Z');
    const m = await approvedMerchant(deps, { partnerId: 'wp-scheduled' });
    await paidOrder(deps, m.merchantId, { amount: '100.00' });
    const w = worker({ sandbox: false, settlementIntervalSeconds: 86_400 });
    expect((await w.tick()).settlements).toBeGreaterThanOrEqual(1);
    await paidOrder(deps, m.merchantId, { amount: '50.00' });
    deps.clock.advance(3600);
    expect((await w.tick()).settlements).toBe(0); // within the interval
    deps.clock.advance(86_400);
    expect((await w.tick()).settlements).toBe(1);
    expect((await worker().tick()).settlements).toBe(0); // sandbox: only POST /sandbox/settlements/run settles
  });

  it('fans out to partner and merchant endpoints and signs per Standard Webhooks', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp1' });
    const partnerEp = await createWebhookEndpoint(
      deps,
      m.partnerScope,
      { url: `${rx.base}/partner`, events: ['PAYMENT_FAILED', 'MERCHANT_APPROVED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    const merchantEp = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/merchant`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/settled-only`, events: ['PAYMENT_SETTLED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    const other = await approvedMerchant(deps, { partnerId: 'wp2' });
    await createWebhookEndpoint(
      deps,
      other.partnerScope,
      { url: `${rx.base}/other-partner`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );

    const failed = await paidOrder(deps, m.merchantId, {}, 'failure');
    const w = worker();
    const report = await w.tick();
    expect(report.fannedOutEvents).toBeGreaterThanOrEqual(2);
    const byPath = (p: string) => rx.received.filter((r) => r.path === p);
    expect(byPath('/merchant')).toHaveLength(1);
    expect(byPath('/settled-only')).toHaveLength(0);
    expect(byPath('/other-partner')).toHaveLength(0);
    const partnerTypes = byPath('/partner')
      .map((r) => (JSON.parse(r.body) as { event_type: string }).event_type)
      .sort();
    // wp1's MERCHANT_APPROVED was created before the partner endpoint existed: not delivered to it (D79 410 Gone disables an endpoint, enable endpoint)
    expect(partnerTypes).toEqual(['PAYMENT_FAILED']);

    const delivery = byPath('/merchant')[0]!;
    const event = new Webhook(merchantEp.secret).verify<{ event_type: string; sequence_number: string; data: { order_id: string } }>(
      delivery.body,
      delivery.headers as never,
    );
    expect(event.event_type).toBe('PAYMENT_FAILED');
    expect(event.data.order_id).toBe(failed.order_id);
    expect(delivery.headers['webhook-id']).toBe(`msg_${event.sequence_number}`);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(Object.keys(JSON.parse(delivery.body) as object)).toEqual(['event_type', 'event_time', 'version', 'sequence_number', 'data']);
    expect(() => new Webhook(partnerEp.secret).verify(delivery.body, delivery.headers as never)).toThrow();

    const again = await w.tick();
    expect(again.fannedOutEvents).toBe(0);
    expect(again.deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 });
  });

  it('signs with the sealed endpoint secret; a secret that does not open is a failed attempt, never an unsigned send', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp-sealed' });
    const ok = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/sealed-ok`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    const bad = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/sealed-bad`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    const stored = await t.db.query<{ id: string; row: string; secret_sealed: string }>(
      'SELECT id, to_jsonb(w)::text AS row, secret_sealed FROM webhook_endpoints w WHERE id = ANY($1) ORDER BY id',
      [[ok.id, bad.id]],
    );
    for (const row of stored.rows) {
      expect(row.row).not.toContain('whsec_');
      expect(row.secret_sealed).not.toContain('whsec_');
    }
    // as if sealed under another master key
    const otherBox = createSecretBox(parseMasterKey(generateMasterKey()));
    await t.db.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1', [
      bad.id,
      otherBox.seal(bad.secret, `webhook_endpoint:${bad.id}:secret`),
    ]);
    await paidOrder(deps, m.merchantId, {}, 'failure');
    const report = await worker().tick();
    expect(report.deliveries).toMatchObject({ succeeded: 1, retry: 1 });
    expect(rx.received.filter((r) => r.path === '/sealed-bad')).toHaveLength(0);
    const delivered = rx.received.find((r) => r.path === '/sealed-ok')!;
    expect(() => new Webhook(ok.secret).verify(delivered.body, delivered.headers as never)).not.toThrow();
    const attempts = await t.db.query<{ error: string | null }>(
      `SELECT a.error FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
      [bad.id],
    );
    expect(attempts.rows.map((r) => r.error)).toEqual([SECRET_UNAVAILABLE_ERROR]);
    // out of the way of the next tests' counts
    await t.db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id = $1`, [bad.id]);
  });

  it('retries on 5xx and timeouts with the schedule, records every attempt, then gives up', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp3' });
    await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/flaky`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/down`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/hang`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    rx.behaviour.set('/flaky', (n) => (n === 1 ? 503 : 204));
    rx.behaviour.set('/down', () => 500);
    rx.behaviour.set('/hang', () => 'hang');
    await paidOrder(deps, m.merchantId, {}, 'failure');
    const w = worker();

    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 3, failed: 0 });
    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 }); // not due yet
    deps.clock.advance(2);
    expect((await w.tick()).deliveries).toEqual({ succeeded: 1, retry: 2, failed: 0 });
    deps.clock.advance(4);
    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 2 });
    deps.clock.advance(3600);
    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 });

    const ids = rx.received.filter((r) => r.path === '/flaky').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]); // stable across retries

    const { rows } = await t.db.query<{
      url: string;
      status: string;
      attempt: number;
      last_status_code: number | null;
      last_error: string | null;
      attempts: number;
    }>(
      `SELECT w.url, d.status, d.attempt, d.last_status_code, d.last_error,
              (SELECT count(*) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id)::int AS attempts
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.merchant_id = $1 ORDER BY w.url`,
      [m.merchantId],
    );
    expect(rows).toEqual([
      { url: `${rx.base}/down`, status: 'failed', attempt: 3, last_status_code: 500, last_error: 'HTTP 500', attempts: 3 },
      { url: `${rx.base}/flaky`, status: 'succeeded', attempt: 2, last_status_code: 204, last_error: null, attempts: 2 },
      { url: `${rx.base}/hang`, status: 'failed', attempt: 3, last_status_code: null, last_error: 'timeout after 500 ms', attempts: 3 },
    ]);
  });

  it('delivers to an endpoint only the events created after it was registered', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp-after' }); // MERCHANT_APPROVED, before any endpoint
    await paidOrder(deps, m.merchantId, {}, 'failure'); // PAYMENT_FAILED, before any endpoint
    await worker().tick(); // fanned out while nobody listened
    await paidOrder(deps, m.merchantId, {}, 'failure'); // still before the endpoint, not fanned out yet
    const ep = await createWebhookEndpoint(
      deps,
      m.partnerScope,
      { url: `${rx.base}/after`, events: ['MERCHANT_APPROVED', 'PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    const later = await paidOrder(deps, m.merchantId, {}, 'failure');
    await worker().tick();
    const got = rx.received
      .filter((r) => r.path === '/after')
      .map((r) => JSON.parse(r.body) as { event_type: string; data: { order_id?: string } });
    expect(got.map((e) => [e.event_type, e.data.order_id])).toEqual([['PAYMENT_FAILED', later.order_id]]);
    expect((await listWebhookDeliveries(deps, m.partnerScope, ep.id)).count).toBe(1);
  });

  it('delivery ids are random like every other id, never the internal sequence; a redelivery finds its delivery by it (D99)', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp-ids' });
    const ep = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/ids`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    for (let i = 0; i < 3; i++) await paidOrder(deps, m.merchantId, {}, 'failure');
    await worker().tick();
    const { results } = await listWebhookDeliveries(deps, m.merchantScope, ep.id);
    expect(results).toHaveLength(3);
    const ids = results.map((d) => d.id);
    expect(ids.every((id) => /^dlv_[A-Za-z0-9_-]{22}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    // nothing of the internal sequence shows: not in the id, not anywhere in the view
    const { rows } = await t.db.query<{ id: string }>('SELECT id::text AS id FROM webhook_deliveries WHERE endpoint_id = $1', [ep.id]);
    for (const { id } of rows) expect(JSON.stringify(results)).not.toMatch(new RegExp(`"dlv_${id}"|"id":${id}[,}]`));
    // distinct random ids share no prefix the way consecutive numbers do
    const prefixes = new Set(ids.map((id) => id.slice(0, 8)));
    expect(prefixes.size).toBe(3);
    expect(await redeliverWebhookDelivery(deps, m.merchantScope, ids[1]!)).toMatchObject({ id: ids[1], status: 'pending' });
    await expect(redeliverWebhookDelivery(deps, m.merchantScope, 'dlv_AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({
      code: 'ERR_WEBHOOK_404',
    });
    await expect(redeliverWebhookDelivery(deps, m.merchantScope, `dlv_${rows[0]!.id}`)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
    expect((await worker().tick()).deliveries).toEqual({ succeeded: 1, retry: 0, failed: 0 }); // the redelivery, sent
  });

  it('410 Gone disables the endpoint: no further attempts or deliveries; enabling it and redelivering works', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp-gone' });
    const ep = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}/gone`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    rx.behaviour.set('/gone', () => 410);
    const first = await paidOrder(deps, m.merchantId, {}, 'failure');
    const w = worker();
    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 1 });
    const [listed] = (await listWebhookEndpoints(deps, m.merchantScope)).results;
    expect(listed).toMatchObject({ id: ep.id, status: 'disabled', disabled_reason: 'HTTP 410 Gone from the receiver' });

    await paidOrder(deps, m.merchantId, {}, 'failure'); // while disabled: no delivery is created
    deps.clock.advance(3600);
    expect((await w.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 });
    expect(rx.received.filter((r) => r.path === '/gone')).toHaveLength(1);
    const page = await listWebhookDeliveries(deps, m.merchantScope, ep.id);
    expect(page.results).toHaveLength(1);
    expect(page.results[0]).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      attempts: [{ attempt: 1, status_code: 410, error: 'HTTP 410' }],
    });

    rx.behaviour.set('/gone', () => 200);
    expect(await enableWebhookEndpoint(deps, m.merchantScope, ep.id)).toMatchObject({ status: 'enabled', disabled_reason: null });
    const third = await paidOrder(deps, m.merchantId, {}, 'failure');
    const redelivered = await redeliverWebhookDelivery(deps, m.merchantScope, page.results[0]!.id);
    expect(redelivered).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect((await w.tick()).deliveries).toEqual({ succeeded: 2, retry: 0, failed: 0 });
    const bodies = rx.received.filter((r) => r.path === '/gone').map((r) => JSON.parse(r.body) as { data: { order_id: string } });
    expect(bodies.map((b) => b.data.order_id).sort()).toEqual([first.order_id, first.order_id, third.order_id].sort());
    const ids = rx.received.filter((r) => r.path === '/gone').map((r) => r.headers['webhook-id']);
    expect(ids[0]).toBe(ids.find((_, i) => i > 0 && bodies[i]!.data.order_id === first.order_id)); // same webhook-id on redelivery
    const after = await listWebhookDeliveries(deps, m.merchantScope, ep.id, { status: 'succeeded' });
    expect(after.results.map((d) => d.attempt_count).sort()).toEqual([1, 2]);
  });

  it.each([
    ['delay-seconds within the schedule', 429, (): string => '7', [7, 7]],
    ['delay-seconds beyond the largest delay (capped)', 503, (): string => '86400', [10, 10]],
    ['delay-seconds shorter than the schedule (ignored)', 429, (): string => '1', [2, 2]],
    // an HTTP date has whole seconds: 7 s ahead of now is between 6 and 7 s away
    ['an HTTP date 7 s ahead', 503, (): string => new Date(Date.now() + 7000).toUTCString(), [5.9, 7]],
  ] as const)('Retry-After (%s) on %i moves the next attempt within the schedule', async (name, status, retryAfter, [min, max]) => {
    const m = await approvedMerchant(deps, { partnerId: `wp-ra-${name.length}` });
    const path = `/retry-after-${name.length}`;
    await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `${rx.base}${path}`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    rx.behaviour.set(path, () => status);
    rx.retryAfter.set(path, retryAfter);
    await paidOrder(deps, m.merchantId, {}, 'failure');
    expect((await worker({ retrySchedule: [2, 10] }).tick()).deliveries).toEqual({ succeeded: 0, retry: 1, failed: 0 });
    const { rows } = await t.db.query<{ delay: number }>(
      `SELECT EXTRACT(EPOCH FROM d.next_attempt_at - d.updated_at)::float8 AS delay
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.merchant_id = $1`,
      [m.merchantId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.delay).toBeGreaterThanOrEqual(min);
    expect(rows[0]!.delay).toBeLessThanOrEqual(max);
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE merchant_id = $1)`,
      [m.merchantId],
    );
  });

  it('processes sandbox refunds after 60 s and flushes on shutdown', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp4' });
    const paid = await paidOrder(deps, m.merchantId);
    const refund = await createRefund(deps, m.merchantScope, { payment_id: paid.payment_id!, refund_amount: '1.00' });
    const w = worker({ intervalMs: 10 });
    w.start();
    expect(w.running).toBe(true);
    deps.clock.advance(61);
    await expect
      .poll(() => getRefund(deps, m.merchantScope, refund.refund_id).then((r) => r.refund_status), { timeout: 5000 })
      .toBe('PROCESSED');
    await w.flush();
    expect(w.running).toBe(false);
  });

  it('claims at most the per-endpoint cap of any endpoint, none of one at its cap, and records a batch in one statement (D114)', async () => {
    const m = await approvedMerchant(deps, { partnerId: 'wp-cap' });
    const opts = { allowInsecure: true, allowPrivateDestinations: true };
    const a = await createWebhookEndpoint(deps, m.partnerScope, { url: `${rx.base}/cap-a`, events: ['PAYMENT_FAILED'] }, opts);
    const b = await createWebhookEndpoint(deps, m.merchantScope, { url: `${rx.base}/cap-b`, events: ['PAYMENT_FAILED'] }, opts);
    for (let i = 0; i < 4; i++) await paidOrder(deps, m.merchantId, {}, 'failure');
    expect(await fanOutEvents(deps)).toBeGreaterThanOrEqual(4);
    const perEndpoint = (ds: ClaimedDelivery[]) => [a.id, b.id].map((id) => ds.filter((d) => d.endpoint_id === id).length);

    const capped = await claimDueDeliveries(deps, 10, { perEndpointCap: 2, busy: new Map([[b.id, 1]]) });
    expect(perEndpoint(capped)).toEqual([2, 1]); // b already has one in flight
    // the cap holds across processes (D342 fair webhook claim across endpoints): the database's in-flight count (live leases) counts, whoever claimed them;
    // a at its cap gets none, b one more to reach its cap of 2
    const saturated = await claimDueDeliveries(deps, 10, { perEndpointCap: 2 });
    expect(perEndpoint(saturated)).toEqual([0, 1]);

    const outcomes = await recordAttempts(
      deps,
      [...capped, ...saturated].map((d, k) => ({ d, result: result(k % 2 === 0) })),
      [2, 4],
      0,
    );
    expect(outcomes).toEqual([...capped, ...saturated].map((_, k) => (k % 2 === 0 ? 'succeeded' : 'retry')));
    const { rows } = await t.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1::text[]) GROUP BY status ORDER BY status`,
      [[a.id, b.id]],
    );
    expect(rows).toEqual([
      { status: 'pending', n: 4 + 2 }, // 4 never claimed, 2 to retry
      { status: 'succeeded', n: 2 },
    ]);
    // recording the same attempts again changes nothing (each attempt is recorded once)
    expect(
      await recordAttempts(
        deps,
        capped.map((d) => ({ d, result: result(true) })),
        [2, 4],
        0,
      ),
    ).toEqual(capped.map(() => 'failed'));
  });

  if (target === 'postgres')
    it('two worker processes never deliver the same attempt twice', async () => {
      const m = await approvedMerchant(deps, { partnerId: 'wp5' });
      await createWebhookEndpoint(
        deps,
        m.partnerScope,
        { url: `${rx.base}/race`, events: ['PAYMENT_FAILED'] },
        { allowInsecure: true, allowPrivateDestinations: true },
      );
      for (let i = 0; i < 20; i++) await paidOrder(deps, m.merchantId, {}, 'failure');
      const second = await t.openSecond();
      const w1 = worker({ batchSize: 5 });
      const w2 = createWorker({
        deps: { ...deps, db: second },
        retrySchedule: [2, 4],
        jitter: 0,
        batchSize: 5,
        allowPrivateDestinations: true,
      });
      for (let round = 0; round < 6; round++) await Promise.all([w1.tick(), w2.tick()]);
      const ids = rx.received.filter((r) => r.path === '/race').map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });
});
