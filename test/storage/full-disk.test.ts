/**
 * Honest storage failures (D361 running out of a resource classified), on PGlite and (with PAYGATE_TEST_DATABASE_URL) on PostgreSQL: while the disk is
 * "full" every write fails with the database's own disk-full error, SQLSTATE 53100, raised by the engine itself
 * (a statement trigger on every table: `RAISE ... USING ERRCODE = 'disk_full'`, the error shape each driver gives for
 * a real ENOSPC, which PostgreSQL and PGlite report as 53100). Filling a real disk needs root (a tiny tmpfs) and would
 * PANIC PGlite's single backend on its WAL; the shapes of ENOSPC itself are unit-tested in db/resource-exhausted.test.ts.
 *
 * - writes answer the declared 503 ERR_UNAVAILABLE_503 with Retry-After (validated against the spec), never 500;
 * - reads keep working;
 * - /readyz says not ready (`storage: exhausted`) while writes fail, and ready again once a write succeeds;
 * - nothing acknowledged is lost, and a refused keyed POST retried with its key after space returns is done once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTargets, requireRuntime } from '../../packages/contract-tests/src/support/gateway.js';
import {
  dataOf,
  merchantBody,
  openPaygate,
  orderBody,
  type MerchantAccount,
  type Paygate,
} from '../../packages/contract-tests/src/support/paygate.js';

/** Every write to every table of the schema fails as on a full disk; reads work. */
const FILL_DISK = `
CREATE OR REPLACE FUNCTION paygate_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'could not extend file "base/5/%": No space left on device', TG_RELID
    USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
END $$;
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
    EXECUTE format('CREATE TRIGGER paygate_test_disk_full BEFORE INSERT OR UPDATE OR DELETE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION paygate_test_disk_full()', t);
  END LOOP;
END $$;`;

const FREE_DISK = `
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS paygate_test_disk_full ON %I', t);
  END LOOP;
END $$;`;

for (const target of gatewayTargets()) {
  describe(`a full disk (${target})`, () => {
    let pg: Paygate;
    let m: MerchantAccount;

    beforeAll(async () => {
      pg = await openPaygate(target);
      m = await pg.onboard();
    }, 120_000);
    afterAll(async () => {
      await pg?.close();
    });

    it('answers writes 503 with Retry-After, stays readable, is not ready until writes succeed, loses nothing', async () => {
      const db = requireRuntime(pg.gw).db;
      const readyz = async () => {
        const res = await fetch(`${pg.gw.baseUrl}/readyz`);
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
      };
      // acknowledged before the disk fills
      const first = orderBody();
      const before = await pg.createOrder(m.credentials, first);
      expect(before.status, before.text).toBe(200);
      const acknowledged = { order_id: dataOf<{ order_id: string }>(before).order_id, reference_id: first['reference_id'] as string };
      expect((await readyz()).status).toBe(200);

      await db.exec(FILL_DISK);
      try {
        const key = randomUUID();
        const body = orderBody();
        const refused = [
          await pg.call('POST', '/pg/orders/', m.credentials, { json: body, headers: { 'Idempotency-Key': key }, allowServerError: true }),
          await pg.call('POST', '/pg/orders/', m.credentials, { json: orderBody(), allowServerError: true }),
          await pg.call('POST', '/partners/merchants/', pg.partner, {
            json: merchantBody(),
            allowServerError: true,
          }),
        ];
        for (const res of refused) {
          // the response was validated against the operation's declared responses by the checker
          expect(res.status, res.text).toBe(503);
          expect(res.error?.code).toBe('ERR_UNAVAILABLE_503');
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(res.text).not.toContain('No space left'); // the cause goes to the log only
        }
        // reads keep working
        const read = await pg.call('GET', `/pg/orders/${acknowledged.order_id}`, m.credentials);
        expect(read.status, read.text).toBe(200);
        // not ready while writes fail (the probe's own write fails too)
        for (let i = 0; i < 2; i++) {
          const probe = await readyz();
          expect(probe.status).toBe(503);
          expect(probe.retryAfter).toBe('1');
          expect(probe.body).toMatchObject({
            status: 'unavailable',
            checks: { database: 'ok', storage: 'exhausted' },
            failing: ['storage'],
          });
        }

        // space returns
        await db.exec(FREE_DISK);
        const probe = await readyz();
        expect(probe.status).toBe(200);
        expect(probe.body).toMatchObject({ status: 'ready', checks: { database: 'ok', storage: 'ok' } });
        expect((await readyz()).body).toEqual({ status: 'ready', checks: { database: 'ok' } });

        // the refused keyed POST, retried with its key, is done once; what was acknowledged is all there
        const retried = await pg.call('POST', '/pg/orders/', m.credentials, { json: body, headers: { 'Idempotency-Key': key } });
        expect(retried.status, retried.text).toBe(200);
        const replayed = await pg.call('POST', '/pg/orders/', m.credentials, { json: body, headers: { 'Idempotency-Key': key } });
        expect(dataOf<{ order_id: string }>(replayed).order_id).toBe(dataOf<{ order_id: string }>(retried).order_id);
        const again = await pg.call('GET', `/pg/orders/${acknowledged.order_id}`, m.credentials);
        expect(dataOf<{ reference_id: string }>(again).reference_id).toBe(acknowledged.reference_id);
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE reference_id = ANY($1::text[])', [
          [acknowledged.reference_id, body['reference_id'] as string],
        ]);
        expect(rows[0]?.n).toBe(2);
      } finally {
        await db.exec(FREE_DISK);
      }
    }, 120_000);
  });
}
