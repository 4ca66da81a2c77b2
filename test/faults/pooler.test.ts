/**
 * Two gateway PROCESSES behind a real PgBouncer in transaction mode (Debian's 1.18, stock settings; D350-D353):
 * A with DATABASE_DIRECT_URL (LISTEN on a direct connection), B with the pooler's URL alone (polling). Started together
 * on a fresh database (migrations race through the pooler), they take keyed writes, complete checkouts, deliver
 * webhooks and honour each other's credential rotations, with 0 5xx; a row locked by another connection answers 503
 * with Retry-After at the lock timeout. Registered when PAYGATE_TEST_DATABASE_URL is set; skipped with the reason when
 * pgbouncer is not installed, a failure instead under PAYGATE_TEST_PGBOUNCER=1 (CI).
 */
import { randomUUID } from 'node:crypto';
import { createPaygateClient } from '@paygate/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgbouncerSkipReason, startPgBouncer, type PgBouncer } from '../../packages/reference/src/testing/pgbouncer.js';
import {
  clientFor,
  createHostedOrder,
  expectOk,
  onboardMerchant,
  orderRequest,
  paidOrder,
  sleep,
  waitFor,
  type Credentials,
  type MerchantAccess,
} from './helpers/api.js';
import {
  adminDatabaseUrl,
  createTestDatabase,
  ensureBuilt,
  killAllGateways,
  partnerCredentials,
  reportNotRun,
  spawnGateway,
  type GatewayProcess,
  type TestDatabase,
} from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

const adminUrl = adminDatabaseUrl();
/** Polling (B) honours a change within two 0.5 s polls; the bound is generous for a loaded CI machine. */
const CHANGE_BOUND_MS = 5_000;
const LOCK_TIMEOUT_MS = 1_000;

interface EventPayload {
  event_type: string;
  data: { order_id?: string };
}

if (!adminUrl) {
  reportNotRun('test/faults/pooler.test.ts (two gateway processes behind PgBouncer in transaction mode)');
} else {
  const skipReason = pgbouncerSkipReason();
  if (skipReason) console.warn(`\n!!!!! test/faults/pooler.test.ts SKIPPED: ${skipReason} !!!!!\n`);

  describe.skipIf(skipReason !== undefined)('two gateway processes behind PgBouncer (transaction mode)', () => {
    let db: TestDatabase | undefined;
    let bouncer: PgBouncer | undefined;
    let receiver: Receiver | undefined;
    let a: GatewayProcess;
    let b: GatewayProcess;
    const partner = partnerCredentials();
    /** Every HTTP status the tests saw from either process. */
    const statuses: number[] = [];
    const seen = <T extends { status: number }>(r: T): T => {
      statuses.push(r.status);
      return r;
    };

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      bouncer = await startPgBouncer(adminUrl);
      receiver = await startReceiver({ behaviour: () => ({ status: 204 }) });
      const pooledUrl = bouncer.pooled(db.directUrl);
      const common = {
        databaseUrl: pooledUrl,
        partner,
        // production's poll interval: B's deliveries wait for it, A's are woken by NOTIFY
        workerIntervalMs: 1_000,
        retrySchedule: '1,1,1',
      };
      const env = { PAYGATE_CREDENTIAL_CACHE_TTL_MS: '600000', PAYGATE_DB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) };
      [a, b] = await Promise.all([
        spawnGateway({ ...common, name: 'pooled-A', env: { ...env, DATABASE_DIRECT_URL: db.directUrl } }),
        spawnGateway({ ...common, name: 'pooled-B', env }),
      ]);
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await receiver?.close();
      await bouncer?.stop();
      await db?.drop();
    });

    it('B knows it has no notifications and says so; A listens on the direct connection', async () => {
      const warned = (g: GatewayProcess) => g.output.some((l) => l.includes('webhook wake-ups unavailable'));
      // B logs it when its worker's first LISTEN is refused, which may come after its start-up banner: wait for it
      await waitFor('B to say its webhook wake-ups are unavailable', () => (warned(b) ? true : undefined), { timeoutMs: 30_000 });
      expect(warned(a)).toBe(false);
    });

    it('keyed writes sent to both processes at once: one order per key, every answer the same order, no 5xx', async () => {
      const merchant = await onboardMerchant(a.baseUrl, clientFor(a.baseUrl, partner), 'Pooled keys');
      const keyed = (baseUrl: string, key: string) =>
        createPaygateClient({
          baseUrl,
          clientId: merchant.credentials.clientId,
          clientSecret: merchant.credentials.clientSecret,
          maxRetries: 0,
          idempotencyKey: () => key,
        });
      for (let round = 0; round < 5; round++) {
        const keys = Array.from({ length: 8 }, () => `pooled-${randomUUID()}`);
        await Promise.all(
          keys.map(async (key, i) => {
            const body = { reference_id: `ref-${round}-${i}` };
            const answers = await Promise.all(
              [a, b, a, b].map(async (g) => seen(await keyed(g.baseUrl, key).orders.create(orderRequest(body)))),
            );
            // a twin still in flight is refused with the declared 409 (retry later); every success names one order
            for (const r of answers) expect([201, 200, 409]).toContain(r.status);
            const ids = new Set(answers.flatMap((r) => (r.ok ? [r.data.data.order_id] : [])));
            expect(ids.size).toBeLessThanOrEqual(1);
            // the retry a client makes after a 409: the same order
            const again = seen(await keyed(b.baseUrl, key).orders.create(orderRequest(body)));
            expect(again.ok).toBe(true);
            if (again.ok && ids.size === 1) expect(again.data.data.order_id).toBe([...ids][0]);
          }),
        );
      }
    }, 180_000);

    it('checkouts complete through either process', async () => {
      const merchant = await onboardMerchant(b.baseUrl, clientFor(b.baseUrl, partner), 'Pooled checkout');
      const onA = { ...merchant, client: clientFor(a.baseUrl, merchant.credentials) };
      const done = await Promise.all(
        Array.from({ length: 12 }, (_, i) => paidOrder(i % 2 === 0 ? onA : merchant, i % 3 === 0 ? 'failure' : 'success')),
      );
      expect(done.every((d) => d.callback.order_id === d.orderId)).toBe(true);
    }, 180_000);

    it('webhooks are delivered once each: woken by NOTIFY on A, by the poll on B', async () => {
      if (!receiver) throw new Error('setup failed');
      const partnerA = clientFor(a.baseUrl, partner);
      const endpoint = expectOk(
        'createWebhookEndpoint',
        seen(await partnerA.webhooks.createEndpoint({ url: receiver.url, events: ['PAYMENT_FAILED'] })),
      ).data;
      receiver.setSecret(endpoint.secret);
      const merchant = await onboardMerchant(a.baseUrl, partnerA, 'Pooled hooks');
      const onB = { ...merchant, client: clientFor(b.baseUrl, merchant.credentials) };
      const orders = new Set<string>();
      for (let i = 0; i < 10; i++) orders.add((await paidOrder(i % 2 === 0 ? merchant : onB, 'failure')).orderId);
      const delivered = () => {
        const got = new Set<string>();
        for (const d of receiver?.deliveries ?? []) {
          const p = d.payload as EventPayload;
          if (d.verified && d.answered === 204 && p.event_type === 'PAYMENT_FAILED' && p.data.order_id) got.add(p.data.order_id);
        }
        return got;
      };
      await waitFor('every PAYMENT_FAILED to be delivered', () => ([...orders].every((o) => delivered().has(o)) ? true : undefined), {
        timeoutMs: 30_000,
        describeLast: () => `${delivered().size}/${orders.size}`,
      });
      await sleep(1_500); // a duplicate would show up now
      const duplicates = [...receiver.acceptedCounts()].filter(([, n]) => n > 1);
      expect(duplicates).toEqual([]);
    }, 180_000);

    it('a credential rotation through one process is honoured by the other (B polls, A listens)', async () => {
      const merchant = await onboardMerchant(a.baseUrl, clientFor(a.baseUrl, partner), 'Pooled rotation');
      const { orderId } = await createHostedOrder(merchant);
      const statusOn = async (g: GatewayProcess, creds: Credentials) => seen(await clientFor(g.baseUrl, creds).orders.get(orderId)).status;
      const refusedWithin = async (g: GatewayProcess, creds: Credentials) => {
        const start = performance.now();
        for (;;) {
          const status = await statusOn(g, creds);
          if (status === 401) return performance.now() - start;
          expect(status).toBe(200);
          if (performance.now() - start > CHANGE_BOUND_MS) throw new Error(`${g.name} still accepts the replaced secret`);
          await sleep(50);
        }
      };
      const rotate = async (via: GatewayProcess, m: MerchantAccess) => {
        const issued = expectOk(
          'createMerchantCredentials',
          seen(await clientFor(via.baseUrl, partner).merchantCredentials.create(m.merchantId, { overlap_seconds: 0 })),
        ).data;
        return { clientId: issued.client_id, clientSecret: issued.client_secret };
      };
      // B caches the secret (twice read), A replaces it: B notices by polling
      const first = merchant.credentials;
      expect(await statusOn(b, first)).toBe(200);
      expect(await statusOn(b, first)).toBe(200);
      const second = await rotate(a, merchant);
      expect(await refusedWithin(b, first)).toBeLessThan(CHANGE_BOUND_MS);
      expect(await statusOn(b, second)).toBe(200);
      // A caches the new secret, B replaces it: A hears it on its direct LISTEN connection
      expect(await statusOn(a, second)).toBe(200);
      expect(await statusOn(a, second)).toBe(200);
      const third = await rotate(b, merchant);
      expect(await refusedWithin(a, second)).toBeLessThan(CHANGE_BOUND_MS);
      expect(await statusOn(a, third)).toBe(200);
    }, 180_000);

    it('a row locked by another connection: the request answers 503 with Retry-After at the lock timeout, then succeeds', async () => {
      if (!db) throw new Error('setup failed');
      const merchant = await onboardMerchant(a.baseUrl, clientFor(a.baseUrl, partner), 'Pooled lock');
      const holder = new pg.Client({ connectionString: db.directUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchant.merchantId]);
        // issuing credentials locks the merchant row (its key version): it waits for the holder
        const started = performance.now();
        const locked = await clientFor(b.baseUrl, partner).merchantCredentials.create(merchant.merchantId);
        const waited = performance.now() - started;
        expect(locked.status).toBe(503);
        expect(locked.ok ? undefined : (locked.error as { error?: { code?: string } }).error?.code).toBe('ERR_UNAVAILABLE_503');
        expect(locked.response.headers.get('retry-after')).toBe('1');
        expect(waited).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS * 0.9); // it did wait for the lock, bounded by its timeout
        await holder.query('ROLLBACK');
        expectOk(
          'createMerchantCredentials after the lock',
          seen(await clientFor(b.baseUrl, partner).merchantCredentials.create(merchant.merchantId)),
        );
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    }, 120_000);

    it('no request of this suite answered 5xx (the 503 of the locked row aside)', () => {
      expect(statuses.length).toBeGreaterThan(100);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
    });
  });
}
