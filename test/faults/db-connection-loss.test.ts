/**
 * PostgreSQL connections lost under a real `paygate serve` process (D91 infrastructure failures named in one place: 503; D92 Retry-After 1 on every 503): the process stays alive, the affected
 * requests get 503 ERR_UNAVAILABLE_503 with Retry-After and the error envelope (never a reset, a 500 or a 401), then
 * everything recovers, and every Idempotency-Key retried afterwards resolves to exactly one order or refund.
 * - the backend of an in-flight order creation and of an in-flight refund terminated (pg_terminate_backend);
 * - every backend of the gateway's database terminated again and again for 5 s under load;
 * - the database unreachable through a TCP proxy that cuts every connection and refuses new ones.
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectOk, onboardMerchant, orderRequest, paidOrder, sleep, waitFor, type MerchantAccess } from './helpers/api.js';
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
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';

const adminUrl = adminDatabaseUrl();

/** What a client saw: the HTTP status, the envelope's code, Retry-After; `reset` when no answer came at all. */
interface Seen {
  status: number | 'reset';
  code: string | undefined;
  retryAfter: string | null;
}

async function seen(call: () => Promise<{ status: number; ok: boolean; error?: unknown; response: Response }>): Promise<Seen> {
  try {
    const r = await call();
    const code = r.ok ? undefined : (r.error as { error?: { code?: string } } | undefined)?.error?.code;
    return { status: r.status, code, retryAfter: r.response.headers.get('retry-after') };
  } catch {
    return { status: 'reset', code: undefined, retryAfter: null };
  }
}

/** The 503 of D91/D92: envelope code and a positive Retry-After. */
function expectUnavailable(s: Seen, what: string): void {
  expect(s.status, what).toBe(503);
  expect(s.code, what).toBe('ERR_UNAVAILABLE_503');
  expect(Number(s.retryAfter), what).toBeGreaterThan(0);
}

function expectAlive(gateway: GatewayProcess): void {
  expect(gateway.proc.exitCode, gateway.output.slice(-60).join('\n')).toBeNull();
  expect(gateway.output.join('\n')).not.toMatch(/Unhandled 'error' event|uncaughtException/);
}

async function count(url: string, sql: string, params: unknown[]): Promise<number> {
  const rows = await queryDb<{ n: string }>(url, sql, params);
  return Number(rows[0]?.n);
}

if (!adminUrl) {
  reportNotRun('test/faults/db-connection-loss.test.ts (PostgreSQL connections lost under a live gateway)');
} else {
  describe('PostgreSQL connections lost under a live gateway process', () => {
    let db: TestDatabase | undefined;
    let gateway: GatewayProcess;
    let merchant: MerchantAccess;
    const partner = partnerCredentials();
    const url = () => db?.url ?? '';
    const dbName = () => new URL(url()).pathname.slice(1);

    async function capturedPayment(): Promise<string> {
      const { orderId } = await paidOrder(merchant, 'success');
      const paymentId = expectOk('getOrder', await merchant.client.orders.get(orderId)).data.payments[0]?.payment_id;
      if (!paymentId) throw new Error(`order ${orderId} has no payment`);
      return paymentId;
    }

    /** Retry a keyed POST until it is answered 2xx (a client retrying after 503); every answer on the way is a 503 or 409. */
    async function retryUntilDone(
      call: () => Promise<{ status: number; ok: boolean; error?: unknown; response: Response }>,
      what: string,
    ): Promise<void> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const s = await seen(call);
        if (typeof s.status === 'number' && s.status < 300) return;
        if (s.status === 503) expectUnavailable(s, what);
        else expect([409], `${what}: ${JSON.stringify(s)}`).toContain(s.status); // the key's first run still rolling back
        if (Date.now() > deadline) throw new Error(`${what} not done after 15 s: ${JSON.stringify(s)}`);
        await sleep(200);
      }
    }

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      gateway = await spawnGateway({ name: 'db-loss-1', databaseUrl: db.url, partner });
      merchant = await onboardMerchant(gateway.baseUrl, clientFor(gateway.baseUrl, partner), 'Lostconn');
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await db?.drop();
    });

    it('the backends of an in-flight order creation and refund terminated: 503 for both, the process lives, each key runs once', async () => {
      const paymentId = await capturedPayment();
      const order = orderRequest();
      const orderKey = `lost-order-${randomUUID()}`;
      const refund = { payment_id: paymentId, refund_amount: '250.00' };
      const refundKey = `lost-refund-${randomUUID()}`;
      const holder = new pg.Client({ connectionString: url() });
      await holder.connect();
      let terminated = 0;
      try {
        // both INSERTs wait on these locks, inside their transactions, until their backends are terminated (a hosted
        // order is inserted with its checkout session by one statement, D150, which also reads the merchant: D175)
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE orders, refunds IN SHARE ROW EXCLUSIVE MODE');
        const createOrder = seen(() => merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } }));
        const createRefund = seen(() => merchant.client.refunds.create(refund, { headers: { 'Idempotency-Key': refundKey } }));
        const waiting = `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND (query LIKE 'INSERT INTO orders%' OR query LIKE 'WITH %INSERT INTO orders%' OR query LIKE 'INSERT INTO refunds%')`;
        const pids = await waitFor(
          'both INSERTs to wait in their transactions',
          async () => {
            const rows = await queryDb<{ pid: number }>(adminUrl, waiting, [dbName()]);
            return rows.length === 2 ? rows.map((r) => r.pid) : undefined;
          },
          { timeoutMs: 10_000 },
        );
        for (const pid of pids)
          terminated += (await queryDb<{ t: boolean }>(adminUrl, 'SELECT pg_terminate_backend($1) AS t', [pid]))[0]?.t ? 1 : 0;
        expectUnavailable(await createOrder, 'createOrder whose backend was terminated');
        expectUnavailable(await createRefund, 'createRefund whose backend was terminated');
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
      expect(terminated).toBe(2);
      expectAlive(gateway);
      // nothing of either request was kept: the retries run them, once
      expect(await count(url(), 'SELECT count(*) AS n FROM orders WHERE reference_id = $1', [order.reference_id])).toBe(0);
      const first = expectOk(
        'createOrder retried',
        await merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } }),
      );
      const again = await merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } });
      expect(again.response.headers.get('idempotent-replayed')).toBe('true');
      expect(again.ok && again.data).toEqual(first);
      expectOk('createRefund retried', await merchant.client.refunds.create(refund, { headers: { 'Idempotency-Key': refundKey } }));
      expectOk('createRefund replayed', await merchant.client.refunds.create(refund, { headers: { 'Idempotency-Key': refundKey } }));
      expect(await count(url(), 'SELECT count(*) AS n FROM orders WHERE reference_id = $1', [order.reference_id])).toBe(1);
      expect(await count(url(), 'SELECT count(*) AS n FROM refunds WHERE payment_id = $1', [paymentId])).toBe(1);
      // and other requests are served as before
      expectOk('listRefunds', await merchant.client.refunds.list({}));
    }, 120_000);

    it('every backend of the database terminated for 5 s under load: only 2xx or 503 with Retry-After, then full recovery, one order per key', async () => {
      const storm = new pg.Client({ connectionString: adminUrl });
      await storm.connect();
      let stormKills = 0;
      let storming = true;
      const stormDone = (async () => {
        const until = Date.now() + 5_000;
        while (Date.now() < until) {
          const res = await storm.query<{ n: string }>(
            'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [dbName()],
          );
          stormKills += Number(res.rows[0]?.n ?? 0);
          await sleep(25);
        }
        storming = false;
      })();
      const keyed: { key: string; order: ReturnType<typeof orderRequest> }[] = [];
      const answers: Seen[] = [];
      // 4 clients, each creating orders (keyed) and reading them back, until the storm is over
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (storming) {
            const item = { key: `storm-${randomUUID()}`, order: orderRequest() };
            keyed.push(item);
            answers.push(await seen(() => merchant.client.orders.create(item.order, { headers: { 'Idempotency-Key': item.key } })));
            answers.push(await seen(() => merchant.client.payments.list({})));
          }
        }),
      );
      await stormDone;
      await storm.end();
      expect(stormKills, 'backends terminated by the storm').toBeGreaterThan(10);
      expectAlive(gateway);
      const statuses = answers.map((a) => a.status);
      // no reset, no 500, no 401: either served or an honest 503
      for (const a of answers) {
        if (a.status === 503) expectUnavailable(a, 'a request during the storm');
        else expect(typeof a.status === 'number' && a.status < 300, JSON.stringify(a)).toBe(true);
      }
      expect(statuses.filter((s) => s === 503).length, `statuses during the storm: ${JSON.stringify(statuses)}`).toBeGreaterThan(0);
      // recovered: every key retried resolves to exactly one order
      for (const item of keyed)
        await retryUntilDone(
          () => merchant.client.orders.create(item.order, { headers: { 'Idempotency-Key': item.key } }),
          `order ${item.key}`,
        );
      const refs = keyed.map((k) => k.order.reference_id);
      const rows = await queryDb<{ reference_id: string; n: string }>(
        url(),
        'SELECT reference_id, count(*) AS n FROM orders WHERE reference_id = ANY($1) GROUP BY reference_id',
        [refs],
      );
      expect(rows).toHaveLength(keyed.length);
      expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
      expectOk('listPayments after the storm', await merchant.client.payments.list({}));
      expectAlive(gateway);
    }, 180_000);
  });

  describe('the database unreachable behind a TCP proxy', () => {
    let db: TestDatabase | undefined;
    let proxy: TcpProxy;
    let gateway: GatewayProcess;
    let merchant: MerchantAccess;
    let orderId: string;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      const direct = new URL(db.url);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const viaProxy = new URL(db.url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      // a credential cache that would answer from memory for 10 minutes: it must stop answering while LISTEN is down (D67 verified credentials cached briefly)
      gateway = await spawnGateway({
        name: 'db-proxy-1',
        databaseUrl: viaProxy.toString(),
        partner,
        env: { PAYGATE_CREDENTIAL_CACHE_TTL_MS: '600000' },
      });
      merchant = await onboardMerchant(gateway.baseUrl, clientFor(gateway.baseUrl, partner), 'Proxied');
      orderId = expectOk('createOrder', await merchant.client.orders.create(orderRequest())).data.order_id;
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await proxy?.close();
      await db?.drop();
    });

    it('authenticated calls get 503 with Retry-After while it is away, never 401; after recovery, 200', async () => {
      // the credentials worked a moment ago
      expectOk('getOrder before', await merchant.client.orders.get(orderId));
      proxy.down();
      const partnerClient = clientFor(gateway.baseUrl, partner);
      const calls: [string, () => Promise<{ status: number; ok: boolean; error?: unknown; response: Response }>][] = [
        ['getOrder (merchant)', () => merchant.client.orders.get(orderId)],
        ['listPayments (merchant)', () => merchant.client.payments.list({})],
        [
          'createOrder (merchant, keyed)',
          () => merchant.client.orders.create(orderRequest(), { headers: { 'Idempotency-Key': randomUUID() } }),
        ],
        ['listMerchants (partner)', () => partnerClient.merchants.list({})],
      ];
      for (let round = 0; round < 3; round++) {
        for (const [what, call] of calls) expectUnavailable(await seen(call), `${what}, round ${round + 1}`);
      }
      expect(proxy.refused).toBeGreaterThan(0);
      expectAlive(gateway);
      proxy.up();
      const back = await waitFor(
        'the order to be served again',
        async () => {
          const s = await seen(() => merchant.client.orders.get(orderId));
          if (s.status === 503) return undefined;
          return s;
        },
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      expect(back.status).toBe(200);
      for (const [what, call] of calls) expect((await seen(call)).status, `${what} after recovery`).toBeLessThan(300);
      expectAlive(gateway);
    }, 120_000);
  });
}
