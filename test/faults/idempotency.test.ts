/**
 * Exactly-once POSTs on PostgreSQL, with real `paygate serve` processes: an `Idempotency-Key` must never let a request
 * execute twice, whatever fails and whenever.
 * - a fault injected into the key bookkeeping statement (after the refund / order was written in the same request);
 * - kill -9 of the gateway while that statement runs, then a restart;
 * - a first execution stalled (a lock held from another session) long past any lease, with the sandbox clock moved;
 * - the same key after a credential rotation.
 * Each ends with exactly one refund (or order), and every retry answered with the original response or the only
 * execution. Registered only when PAYGATE_TEST_DATABASE_URL is set.
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

const adminUrl = adminDatabaseUrl();

/** A trigger on idempotency_keys that fails, or sleeps, on the first INSERT after `arm` (a sequence: not rolled back). */
const FAULT_SQL = `
  CREATE SEQUENCE IF NOT EXISTS fault_counter;
  CREATE OR REPLACE FUNCTION inject_idempotency_fault() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF nextval('fault_counter') = 1 THEN
      IF TG_ARGV[0] = 'fail' THEN RAISE EXCEPTION 'injected fault: idempotency bookkeeping failed'; END IF;
      PERFORM pg_sleep(TG_ARGV[1]::float);
    END IF;
    RETURN NEW;
  END $$;`;

async function armFault(url: string, mode: 'fail' | 'sleep', seconds = 0): Promise<void> {
  await queryDb(url, FAULT_SQL);
  await queryDb(url, 'DROP TRIGGER IF EXISTS inject_fault ON idempotency_keys');
  await queryDb(url, 'ALTER SEQUENCE fault_counter RESTART');
  await queryDb(
    url,
    `CREATE TRIGGER inject_fault BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION inject_idempotency_fault('${mode}', '${seconds}')`,
  );
}

async function disarmFault(url: string): Promise<void> {
  await queryDb(url, 'DROP TRIGGER IF EXISTS inject_fault ON idempotency_keys');
}

async function count(url: string, sql: string, params: unknown[]): Promise<number> {
  const rows = await queryDb<{ n: string }>(url, sql, params);
  return Number(rows[0]?.n);
}

if (!adminUrl) {
  reportNotRun('test/faults/idempotency.test.ts (exactly-once Idempotency-Key under faults)');
} else {
  describe('Idempotency-Key executes a POST exactly once on PostgreSQL', () => {
    let db: TestDatabase | undefined;
    let gateway: GatewayProcess | undefined;
    let merchant: MerchantAccess;
    const partner = partnerCredentials();
    const url = () => db?.url ?? '';
    const refundsOf = (paymentId: string) => count(url(), 'SELECT count(*) AS n FROM refunds WHERE payment_id = $1', [paymentId]);
    const ordersWith = (referenceId: string) => count(url(), 'SELECT count(*) AS n FROM orders WHERE reference_id = $1', [referenceId]);

    /** A captured payment of 1500.00 INR to refund. */
    async function capturedPayment(): Promise<string> {
      const { orderId } = await paidOrder(merchant, 'success');
      const order = expectOk('getOrder', await merchant.client.orders.get(orderId)).data;
      const paymentId = order.payments[0]?.payment_id;
      if (!paymentId) throw new Error(`order ${orderId} has no payment`);
      return paymentId;
    }

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      gateway = await spawnGateway({ name: 'idempotency-1', databaseUrl: db.url, partner });
      merchant = await onboardMerchant(gateway.baseUrl, clientFor(gateway.baseUrl, partner), 'Idem');
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await db?.drop();
    });

    it('a failure in the key bookkeeping rolls the refund back with it; the retry runs once, later retries replay it', async () => {
      const paymentId = await capturedPayment();
      const key = `fault-${randomUUID()}`;
      const body = { payment_id: paymentId, refund_amount: '400.00' };
      await armFault(url(), 'fail');
      try {
        const first = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        expect(first.status).toBe(500);
        expect(await refundsOf(paymentId)).toBe(0);
        const retry = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        expect(retry.status).toBe(200);
        expect(retry.response.headers.get('idempotent-replayed')).toBeNull();
        const again = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        expect(again.response.headers.get('idempotent-replayed')).toBe('true');
        expect(again.ok && retry.ok && again.data).toEqual(retry.ok && retry.data);
        expect(await refundsOf(paymentId)).toBe(1);
      } finally {
        await disarmFault(url());
      }
    });

    it('a failure in the key bookkeeping of an order leaves no order; the retry gets the order id and session id', async () => {
      const key = `fault-order-${randomUUID()}`;
      const body = orderRequest();
      await armFault(url(), 'fail');
      try {
        const first = await merchant.client.orders.create(body, { headers: { 'Idempotency-Key': key } });
        expect(first.status).toBe(500);
        expect(await ordersWith(body.reference_id)).toBe(0);
        const retry = await merchant.client.orders.create(body, { headers: { 'Idempotency-Key': key } });
        expect(retry.status).toBe(200);
        const again = await merchant.client.orders.create(body, { headers: { 'Idempotency-Key': key } });
        expect(again.response.headers.get('idempotent-replayed')).toBe('true');
        expect(again.ok && retry.ok && again.data).toEqual(retry.ok && retry.data);
        expect(retry.ok && 'session_id' in retry.data.data && retry.data.data.session_id).toMatch(/\S/);
        expect(await ordersWith(body.reference_id)).toBe(1);
      } finally {
        await disarmFault(url());
      }
    });

    it('kill -9 between the write and the key bookkeeping: after a restart the retry creates exactly one refund and one order', async () => {
      if (!db || !gateway) throw new Error('setup failed');
      const paymentId = await capturedPayment();
      const refundKey = `crash-${randomUUID()}`;
      const refundBody = { payment_id: paymentId, refund_amount: '400.00' };
      const order = orderRequest();
      const orderKey = `crash-order-${randomUUID()}`;

      for (const step of ['refund', 'order'] as const) {
        await armFault(url(), 'sleep', 2);
        // its answer never comes: the process dies first (a handler now, so the rejection is not unhandled)
        const inFlight = (
          step === 'refund'
            ? merchant.client.refunds.create(refundBody, { headers: { 'Idempotency-Key': refundKey } })
            : merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } })
        ).catch((err: unknown) => err);
        // the request has written its refund / order and now sits in the bookkeeping INSERT
        await waitFor(
          'the bookkeeping statement to be running',
          async () =>
            (await count(url(), `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'`, [])) > 0 ? true : undefined,
          { timeoutMs: 10_000 },
        );
        await gateway.kill9();
        expect(await inFlight).toBeInstanceOf(Error);
        await disarmFault(url());
        gateway = await spawnGateway({ name: `idempotency-after-${step}-crash`, databaseUrl: db.url, partner });
        merchant = { ...merchant, client: clientFor(gateway.baseUrl, merchant.credentials) };
      }
      expect(await refundsOf(paymentId)).toBe(0);
      expect(await ordersWith(order.reference_id)).toBe(0);

      // The dead process's transaction ends when PostgreSQL notices the closed connection; until then its lock holds
      // and a retry is told 409 (never executed a second time).
      const retryUntilDone = async <T extends { status: number }>(call: () => Promise<T>): Promise<T> =>
        waitFor(
          'a retry that is not 409',
          async () => {
            const r = await call();
            return r.status === 409 ? undefined : r;
          },
          { timeoutMs: 20_000, intervalMs: 250 },
        );
      const refund = await retryUntilDone(() => merchant.client.refunds.create(refundBody, { headers: { 'Idempotency-Key': refundKey } }));
      expect(refund.status).toBe(200);
      const created = await retryUntilDone(() => merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } }));
      expect(created.status).toBe(200);
      const replay = await merchant.client.orders.create(order, { headers: { 'Idempotency-Key': orderKey } });
      expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.ok && created.ok && replay.data).toEqual(created.ok && created.data);
      expect(await refundsOf(paymentId)).toBe(1);
      expect(await ordersWith(order.reference_id)).toBe(1);
    }, 120_000);

    it('a first execution stalled past any lease is never taken over: the retry gets 409, then the original response', async () => {
      const paymentId = await capturedPayment();
      const key = `stall-${randomUUID()}`;
      const body = { payment_id: paymentId, refund_amount: '400.00' };
      const holder = new pg.Client({ connectionString: url() });
      await holder.connect();
      try {
        // like a row lock held from psql: refund INSERTs wait
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE refunds IN SHARE ROW EXCLUSIVE MODE');
        const first = merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        await waitFor(
          'the first refund to wait for the lock',
          async () =>
            (await count(
              url(),
              `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO refunds%'`,
              [],
            )) > 0
              ? true
              : undefined,
          { timeoutMs: 10_000 },
        );
        // far beyond any wall-clock lease on the merchant's sandbox clock (idempotency keys run on the gateway's
        // time, D38, so this must change nothing), and (a little) on the real one
        const partnerClient = clientFor(gateway?.baseUrl ?? '', partner);
        expectOk('advanceSandboxClock', await partnerClient.sandbox.advanceClock({ seconds: 7200, merchant_id: merchant.merchantId }));
        await sleep(1000);
        const retry = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        expect(retry.status).toBe(409);
        expect(!retry.ok && retry.error.error.code).toBe('ERR_IDEMPOTENCY_409');
        await holder.query('COMMIT');
        const original = await first;
        expect(original.status).toBe(200);
        const later = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
        expect(later.response.headers.get('idempotent-replayed')).toBe('true');
        expect(later.ok && original.ok && later.data).toEqual(original.ok && original.data);
        expect(await refundsOf(paymentId)).toBe(1);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    }, 120_000);

    it('a key survives credential rotation, and a partner retrying for the merchant replays it: one refund', async () => {
      if (!gateway) throw new Error('setup failed');
      const paymentId = await capturedPayment();
      const key = `rotation-${randomUUID()}`;
      const body = { payment_id: paymentId, refund_amount: '400.00' };
      const first = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(200);
      const partnerClient = clientFor(gateway.baseUrl, partner);
      const rotated = expectOk('createMerchantCredentials', await partnerClient.merchantCredentials.create(merchant.merchantId)).data;
      const newClient = clientFor(gateway.baseUrl, { clientId: rotated.client_id, clientSecret: rotated.client_secret });
      // inside the overlap window (D36 credential rotation with an overlap window) the old credentials still work, and replay
      const oldCredentials = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
      expect(oldCredentials.response.headers.get('idempotent-replayed')).toBe('true');
      // after immediate revocation they are refused
      expect(
        (
          await fetch(`${gateway.baseUrl}/partners/merchants/${merchant.merchantId}/credentials/previous`, {
            method: 'DELETE',
            headers: { 'X-Client-ID': partner.clientId, 'X-Client-Secret': partner.clientSecret },
          })
        ).status,
      ).toBe(200);
      const revoked = await merchant.client.refunds.create(body, { headers: { 'Idempotency-Key': key } });
      expect(revoked.status).toBe(401);
      const retry = await newClient.refunds.create(body, { headers: { 'Idempotency-Key': key } });
      expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.ok && first.ok && retry.data).toEqual(first.ok && first.data);
      const byPartner = await clientFor(gateway.baseUrl, partner, { merchantId: merchant.merchantId }).refunds.create(body, {
        headers: { 'Idempotency-Key': key },
      });
      expect(byPartner.response.headers.get('idempotent-replayed')).toBe('true');
      expect(await refundsOf(paymentId)).toBe(1);
      merchant = { ...merchant, credentials: { clientId: rotated.client_id, clientSecret: rotated.client_secret }, client: newClient };
    });
  });
}
