/**
 * Fair webhook delivery on PostgreSQL (issue 33 item 1, D342): merchant A's endpoint answers 503 and has a backlog of
 * 20,000 due deliveries, older than anything else; merchant B's endpoint is healthy and has 30 new events. B's events
 * must all be delivered in the first worker pass (the old claim took the oldest rows of all endpoints first and left B
 * waiting for A's whole backlog), A's endpoint must be tried once per backoff (a probe), not once per due delivery,
 * and the claim's statements must read a handful of A's rows, not the backlog (EXPLAIN ANALYZE). Counted in passes
 * and rows, never in wall time.
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { createWebhookEndpoint } from '../../packages/reference/src/webhooks/endpoints.js';
import { claimDueDeliveries } from '../../packages/reference/src/webhooks/deliveries.js';
import { createWorker } from '../../packages/reference/src/worker.js';
import type { WebhookTransport } from '../../packages/reference/src/webhooks/transport.js';
import type { Db } from '../../packages/reference/src/db/db.js';
import { formatIso } from '../../packages/reference/src/core/clock.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const BACKLOG = 20_000;
const HEALTHY = 30;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/webhook-fairness.test.ts (one endpoint failing with a big backlog, another merchant delivered)');
} else {
  describe('fair webhook delivery (D342)', () => {
    let t: TestDb;
    let deps: ReturnType<typeof testDeps>;
    const sent: string[] = [];
    const transport: WebhookTransport = {
      post: async (url) => {
        sent.push(url);
        return { status: url.includes('/failing') ? 503 : 200 };
      },
      close: () => undefined,
    };
    let failingId = '';
    let healthyId = '';

    /** `n` events of a merchant, each with a pending delivery to `endpointId` due at `dueIso` (plus i ms). */
    async function seedDue(db: Db, merchantId: string, partnerId: string, endpointId: string, n: number, dueIso: string) {
      await db.query(
        `WITH ev AS (
           INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at, fanned_out_at)
           SELECT gen_random_uuid(), 'PAYMENT_FAILED', $2, $1, '{"event": "PAYMENT_FAILED"}'::json,
                  $5::timestamptz + i * interval '1 millisecond', $5::timestamptz + i * interval '1 millisecond'
           FROM generate_series(1, $4::int) AS i
           RETURNING sequence_number, created_at)
         INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempt, next_attempt_at, created_at, updated_at)
         SELECT sequence_number, $3, 'pending', 0, created_at, created_at, created_at FROM ev`,
        [merchantId, partnerId, endpointId, n, dueIso],
      );
    }

    beforeAll(async () => {
      t = await openTestDb('postgres');
      deps = testDeps(t.db);
      deps.clock.set('2026-06-01T12:00:00Z');
      const a = await approvedMerchant(deps, { partnerId: 'fair_a' });
      const b = await approvedMerchant(deps, { partnerId: 'fair_b' });
      const opts = { allowInsecure: true, allowPrivateDestinations: true };
      failingId = (
        await createWebhookEndpoint(deps, a.merchantScope, { url: 'http://127.0.0.1:9/failing', events: ['PAYMENT_FAILED'] }, opts)
      ).id;
      healthyId = (
        await createWebhookEndpoint(deps, b.merchantScope, { url: 'http://127.0.0.1:9/healthy', events: ['PAYMENT_FAILED'] }, opts)
      ).id;
      // A's backlog: due for an hour already, older than anything of B's
      await seedDue(t.db, a.merchantId, a.partnerId, failingId, BACKLOG, '2026-06-01T11:00:00Z');
      await seedDue(t.db, b.merchantId, b.partnerId, healthyId, HEALTHY, '2026-06-01T11:59:59Z');
      await t.db.query('VACUUM ANALYZE webhook_deliveries');
      await t.db.query('ANALYZE events');
    }, 120_000);
    afterAll(async () => t?.dispose());

    it("the claim reads a handful of the backlog's rows (EXPLAIN ANALYZE), not the backlog", async () => {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      const recording: Db = {
        kind: t.db.kind,
        query: (sql, params = []) => t.db.query(sql, params),
        exec: (sql) => t.db.exec(sql),
        transaction: (fn) =>
          t.db.transaction((tx) =>
            fn({
              kind: tx.kind,
              query: (sql, params = []) => {
                seen.push({ sql, params });
                return tx.query(sql, params);
              },
              exec: (sql) => tx.exec(sql),
              transaction: (inner) => tx.transaction(inner),
              listen: (c, l) => tx.listen(c, l),
              close: () => tx.close(),
            }),
          ),
        listen: (c, l) => t.db.listen(c, l),
        close: () => t.db.close(),
      };
      const dryRun = await claimDueDeliveries({ ...deps, db: recording }, 64, { perEndpointCap: 32 });
      expect(dryRun.map((d) => d.endpoint_id).filter((id) => id === healthyId)).toHaveLength(HEALTHY);
      expect(seen.length).toBe(2);
      // Undo the dry run's claim, then EXPLAIN ANALYZE each statement (run and rolled back) on the same state.
      await t.db.query(
        `UPDATE webhook_deliveries SET status = 'pending', attempt = 0, lease_expires_at = NULL WHERE status = 'delivering'`,
      );
      let read = 0;
      const perNode: string[] = [];
      await t.db
        .transaction(async (tx) => {
          for (const { sql, params } of seen) {
            const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
            for (const n of walk(rows[0]!['QUERY PLAN'][0].Plan)) {
              const onDeliveries = n['Relation Name'] === 'webhook_deliveries' || (n['Index Name'] ?? '').startsWith('webhook_deliveries');
              if (!onDeliveries) continue;
              const rowsRead = ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
              read += rowsRead;
              perNode.push(`${n['Node Type']} ${n['Index Name'] ?? n['Relation Name']}: ${rowsRead}`);
            }
          }
          throw new Error('rollback');
        })
        .catch((err: unknown) => {
          if ((err as Error).message !== 'rollback') throw err;
        });
      // 64 claimed at most, a few index probes per endpoint: far below the 20,000 rows of the backlog
      expect({ read, perNode }).toEqual({ read: Math.min(read, 999), perNode });
    });

    it("another merchant's events are delivered in the first pass; the failing endpoint gets one probe per backoff", async () => {
      sent.length = 0;
      const worker = createWorker({
        deps,
        transport,
        retrySchedule: [5, 300],
        jitter: 0.1,
        sandbox: true,
        batchSize: 64,
        perEndpointConcurrency: 32,
      });
      const first = await worker.tick();
      const healthySent = () => sent.filter((u) => u.endsWith('/healthy')).length;
      const failingSent = () => sent.filter((u) => u.endsWith('/failing')).length;
      expect(healthySent()).toBe(HEALTHY);
      expect(first.deliveries.succeeded).toBe(HEALTHY);
      // A's share was taken once (it was not known to fail before): at most its share of the room, then backed off
      const afterFirst = failingSent();
      expect(afterFirst).toBeGreaterThan(0);
      expect(afterFirst).toBeLessThanOrEqual(32);
      const [mark] = (
        await t.db.query<{ failing_since: string | null; retry_after: string | null }>(
          'SELECT failing_since, retry_after FROM webhook_endpoints WHERE id = $1',
          [failingId],
        )
      ).rows;
      expect(mark?.failing_since).not.toBeNull();

      // Backed off: more passes at the same instant send nothing to A (and B has nothing left)
      for (let i = 0; i < 3; i++) await worker.tick();
      expect(failingSent()).toBe(afterFirst);

      // Each time the backoff (4.5 s: the first retry delay less its jitter) has passed: one probe, whatever the backlog
      for (let i = 1; i <= 3; i++) {
        deps.clock.advance(5);
        await worker.tick();
        expect(failingSent()).toBe(afterFirst + i);
      }

      // New events of B while A is still down: delivered in the next pass
      const b = (
        await t.db.query<{ merchant_id: string; partner_id: string }>(
          'SELECT merchant_id, partner_id FROM webhook_endpoints WHERE id = $1',
          [healthyId],
        )
      ).rows[0]!;
      await seedDue(t.db, b.merchant_id, b.partner_id, healthyId, 10, formatIso(deps.clock.now() - 1_000_000)); // a second ago
      await worker.tick();
      expect(healthySent()).toBe(HEALTHY + 10);

      // A recovers: the probe succeeds and the endpoint gets its full share again
      transport.post = async (url) => {
        sent.push(url);
        return { status: 200 };
      };
      deps.clock.advance(5);
      await worker.tick();
      const recovered = await t.db.query<{ failing_since: string | null }>('SELECT failing_since FROM webhook_endpoints WHERE id = $1', [
        failingId,
      ]);
      expect(recovered.rows[0]?.failing_since).toBeNull();
      const before = failingSent();
      await worker.tick();
      expect(failingSent() - before).toBe(32); // the per-endpoint cap's worth, not one
      await worker.flush();
    }, 120_000);
  });
}
