import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createReferenceApp } from '../app.js';
import { ManualClock } from '../core/clock.js';
import { loadConfig } from '../core/config.js';
import { generateMasterKey } from '../core/secret-box.js';
import { openReference, type ReferenceRuntime } from '../runtime.js';
import { usePgliteTemplate } from '../testing/pglite-template.js';
import { fakeDns } from '../testing/fake-dns.js';
import { approvedMerchant, paidOrder, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { createWorker } from '../worker.js';
import { createWebhookEndpoint } from './endpoints.js';
import { createWebhookTransport } from './transport.js';

/**
 * Server-side request forgery through webhook endpoints (D35 webhooks never reach private addresses): an internal service listening on 127.0.0.1 must
 * receive nothing from a gateway that refuses private destinations, whether the endpoint names it directly (a row
 * from before the guard), through `localhost`, or through a public-looking name that resolves to it when the
 * delivery connects (DNS rebinding, played with an injected resolver). Each refusal is a failed attempt with a clear
 * reason, retried on the schedule, then given up; nothing crashes.
 */

/** The internal service: counts TCP connections and requests. */
async function startTarget() {
  let connections = 0;
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(200).end('{"secret":"internal"}'));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Target = Awaited<ReturnType<typeof startTarget>>;

interface AttemptRow {
  url: string;
  attempt: number;
  error: string | null;
  status_code: number | null;
}

describe.each(testTargets())('SSRF-proof webhook deliveries on %s', (db) => {
  let t: TestDb;
  let target: Target;
  beforeAll(async () => {
    t = await openTestDb(db);
    target = await startTarget();
  });
  afterAll(async () => {
    await target?.close();
    await t?.dispose();
  });

  it('a name that resolves to 127.0.0.1 at delivery time, and a literal loopback URL: refused, recorded, retried on schedule, given up', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00Z');
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: `ssrf-${db}` });
    // accepted at the API: a public-looking name (registration does not resolve names; the connect-time check is the guard)
    await createWebhookEndpoint(
      deps,
      m.partnerScope,
      { url: `https://hooks.rebind.test:${target.port}/paygate`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: false, allowPrivateDestinations: false },
    );
    // a row from before the guard, or written by hand: the API would refuse it now
    const legacy = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: `http://127.0.0.1:${target.port}/legacy`, events: ['PAYMENT_FAILED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    await paidOrder(deps, m.merchantId, {}, 'failure'); // an event after the endpoints exist (D79 410 Gone disables an endpoint, enable endpoint)
    const lookup = fakeDns({ 'hooks.rebind.test': ['127.0.0.1'] });
    const transport = createWebhookTransport({ allowPrivateDestinations: false, lookup });
    const worker = createWorker({ deps, transport, retrySchedule: [5, 300], jitter: 0, sandbox: true, deliveryTimeoutMs: 2000 });
    try {
      const first = await worker.tick();
      expect(first.deliveries).toEqual({ succeeded: 0, retry: 2, failed: 0 });
      expect(lookup.asked).toContain('hooks.rebind.test');
      expect(await worker.tick()).toMatchObject({ deliveries: { succeeded: 0, retry: 0, failed: 0 } }); // not due yet
      clock.advance(5);
      expect((await worker.tick()).deliveries).toEqual({ succeeded: 0, retry: 2, failed: 0 });
      clock.advance(300);
      expect((await worker.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 2 });
      clock.advance(86_400);
      expect((await worker.tick()).deliveries).toEqual({ succeeded: 0, retry: 0, failed: 0 }); // given up

      expect(target.connections).toBe(0);
      expect(target.requests).toEqual([]);
      const { rows } = await t.db.query<AttemptRow>(
        `SELECT w.url, a.attempt, a.error, a.status_code FROM webhook_delivery_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
         JOIN events e ON e.sequence_number = d.event_id
         WHERE e.merchant_id = $1 ORDER BY w.url, a.attempt`,
        [m.merchantId],
      );
      expect(rows).toHaveLength(6);
      for (const row of rows) {
        expect(row.status_code).toBeNull();
        expect(row.error).toBe(
          row.url.includes('rebind')
            ? 'destination refused: hooks.rebind.test resolves to 127.0.0.1, a private, loopback, link-local or metadata address (deliveries go to public addresses only)'
            : 'destination refused: 127.0.0.1, a private, loopback, link-local or metadata address (deliveries go to public addresses only)',
        );
      }
      const { rows: deliveries } = await t.db.query<{ status: string; attempt: number; last_error: string }>(
        `SELECT status, attempt, last_error FROM webhook_deliveries WHERE endpoint_id = $1`,
        [legacy.id],
      );
      expect(deliveries).toEqual([
        { status: 'failed', attempt: 3, last_error: expect.stringMatching(/^destination refused: 127\.0\.0\.1/) },
      ]);
    } finally {
      await worker.flush();
      transport.close();
    }
  });
});

describe('SSRF in a production-mode gateway', () => {
  let target: Target;
  let runtime: ReferenceRuntime;
  let server: Server;
  let base: string;
  const partner = { clientId: 'pk_ssrf_production', clientSecret: 'ps_ssrf_production_secret_0123456789' };

  beforeAll(async () => {
    target = await startTarget();
    const config = loadConfig({
      PAYGATE_MODE: 'production',
      PAYGATE_MASTER_KEY: generateMasterKey(),
      PAYGATE_DATA_DIR: 'memory://',
      PAYGATE_PARTNER_CLIENT_ID: partner.clientId,
      PAYGATE_PARTNER_CLIENT_SECRET: partner.clientSecret,
      PAYGATE_WEBHOOK_TIMEOUT_MS: '2000',
    });
    expect(config.webhookPrivateDestinations).toBe(false);
    await usePgliteTemplate(); // memory://: initdb's output from the run's tarball (D138 test fixtures made once per run)
    runtime = await openReference(config);
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    server = createServer(createReferenceApp(runtime, { logger: silent }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime?.close();
    await target?.close();
  });
  beforeEach(() => {
    target.requests.length = 0;
  });

  it.each([
    ['https://127.0.0.1/hook', /127\.0\.0\.1 is loopback/],
    ['https://localhost:8443/hook', /localhost is local or internal/],
    ['https://169.254.169.254/latest/meta-data/iam/', /169\.254\.169\.254 is linkLocal/],
    ['https://[::ffff:10.0.0.1]/hook', /is ipv4Mapped/],
    ['http://hooks.example.com/hook', /must use https/],
  ])('the endpoint API refuses %s: 400 ERR_VALIDATION_400 naming url', async (url, reason) => {
    const res = await fetch(`${base}/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'X-Client-ID': partner.clientId, 'X-Client-Secret': partner.clientSecret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url, events: ['MERCHANT_APPROVED'] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { success: boolean; error: { code: string; details: Record<string, string> } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('ERR_VALIDATION_400');
    expect(body.error.details['url']).toMatch(reason);
  });

  it('the runtime worker sends nothing to the 127.0.0.1 listener, directly or through localhost', async () => {
    const deps = runtime.deps;
    const m = await approvedMerchant(deps, { partnerId: 'default' });
    // rows the API would refuse (written before the guard existed): the connect-time check still stops them
    for (const url of [`http://127.0.0.1:${target.port}/direct`, `http://localhost:${target.port}/by-name`]) {
      await createWebhookEndpoint(
        deps,
        m.merchantScope,
        { url, events: ['PAYMENT_FAILED'] },
        { allowInsecure: true, allowPrivateDestinations: true },
      );
    }
    await paidOrder(deps, m.merchantId, {}, 'failure'); // an event after the endpoints exist (D79 410 Gone disables an endpoint, enable endpoint)
    const report = await runtime.worker.tick();
    expect(report.deliveries).toEqual({ succeeded: 0, retry: 2, failed: 0 });
    expect(target.connections).toBe(0);
    expect(target.requests).toEqual([]);
    const { rows } = await runtime.db.query<{ last_error: string; status: string }>(
      `SELECT d.last_error, d.status FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id WHERE e.merchant_id = $1`,
      [m.merchantId],
    );
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
    expect(rows.map((r) => r.last_error).sort()).toEqual([
      'destination refused: 127.0.0.1, a private, loopback, link-local or metadata address (deliveries go to public addresses only)',
      'destination refused: localhost resolves to 127.0.0.1, a private, loopback, link-local or metadata address (deliveries go to public addresses only)',
    ]);
  });

  it('PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: allow only in the sandbox', () => {
    const key = generateMasterKey();
    expect(() =>
      loadConfig({ PAYGATE_MODE: 'production', PAYGATE_MASTER_KEY: key, PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: 'allow' }),
    ).toThrow(/refused in production mode/);
    expect(
      loadConfig({ PAYGATE_MODE: 'production', PAYGATE_MASTER_KEY: key, PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: 'deny' })
        .webhookPrivateDestinations,
    ).toBe(false);
    expect(loadConfig({}).webhookPrivateDestinations).toBe(true);
    expect(loadConfig({ PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: 'deny' }).webhookPrivateDestinations).toBe(false);
    expect(() => loadConfig({ PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: 'yes' })).toThrow(/must be allow or deny/);
  });
});
