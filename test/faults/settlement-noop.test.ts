/**
 * A settlement run with nothing due reads nothing old (issue 33 item 8, D343). A merchant with 20,000 settled payments,
 * 2,000 refunds deducted and 1,000 refunds still INITIATED (reserved by the run), beside another merchant with the
 * same history: after the run, a second run has nothing to do. Every statement it sends is EXPLAINed with ANALYZE:
 * no Seq Scan of a history table, the rows it reads from them are a handful (not one per payment, refund or reserve),
 * and the planner's estimate of each index scan is small too (so the plan stays right as the history grows).
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { runSettlements } from '../../packages/reference/src/settlements/service.js';
import type { Db } from '../../packages/reference/src/db/db.js';
import type { Scope } from '../../packages/reference/src/core/scope.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const PAYMENTS = 20_000;
const HISTORY = new Set(['payments', 'orders', 'refunds', 'settlements', 'settlement_transactions', 'settlement_reserves']);
/** Tables this history makes big (settlements has two rows here: the planner may rightly read them in one go). */
const BIG = new Set(['payments', 'orders', 'refunds', 'settlement_transactions', 'settlement_reserves']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Plan Rows'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

function recording(db: Db, into: { sql: string; params: readonly unknown[] }[]): Db {
  const wrap = (inner: Db): Db => ({
    kind: inner.kind,
    query: (sql, params = []) => {
      into.push({ sql, params });
      return inner.query(sql, params);
    },
    exec: (sql) => inner.exec(sql),
    transaction: (fn) => inner.transaction((tx) => fn(wrap(tx))),
    listen: (channel, listener) => inner.listen(channel, listener),
    close: () => inner.close(),
  });
  return wrap(db);
}

/** A merchant's settled-looking history by SQL: payments, processed and initiated refunds (ids unique by `prefix`). */
async function seed(db: Db, merchantId: string, prefix: string): Promise<void> {
  const pad = 16 - prefix.length;
  const id = (letters: string, expr: string) => `'${letters}${prefix}' || lpad((${expr})::text, ${pad}, '0')`;
  await db.query(
    `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                         buyer, product, is_testing, expires_at, created_at, updated_at)
     SELECT ${id('OD', 'i')}, $1, 'noop-${prefix}-' || i, 10000 + i, 'INR', 'payment_successful', 'Payment successful', 'hosted_payment', 'UPI',
            '{"name": "Noop Buyer"}'::jsonb, '{"name": "Widget"}'::jsonb, true, now() + interval '1 day', now() - interval '2 days', now()
     FROM generate_series(1, $2::int) AS i`,
    [merchantId, PAYMENTS],
  );
  await db.query(
    `INSERT INTO payments (id, order_id, merchant_id, status, status_message, mop_type, collection_mode, amount_minor, currency,
                           bank_ref_num, settlement_status, completed_at, created_at, updated_at)
     SELECT ${id('PR', 'i')}, ${id('OD', 'i')}, $1, 'CAPTURED', 'Payment successful', 'UPI', 'hosted_payment', 10000 + i, 'INR',
            'BRN' || i, 'ready_for_settlement', now() - interval '2 days', now() - interval '2 days' + i * interval '1 millisecond', now()
     FROM generate_series(1, $2::int) AS i`,
    [merchantId, PAYMENTS],
  );
  // every 10th payment refunded (processed), every 20th (offset 5) with a refund still INITIATED
  await db.query(
    `INSERT INTO refunds (id, payment_id, merchant_id, amount_minor, currency, status, message, transaction_id, refunded_at, created_at, updated_at)
     SELECT ${id('RF', 'i')}, ${id('PR', 'i')}, $1, 100, 'INR', CASE WHEN i % 10 = 0 THEN 'PROCESSED' ELSE 'INITIATED' END,
            'seeded', ${id('TX', 'i')}, CASE WHEN i % 10 = 0 THEN now() - interval '1 day' END, now() - interval '1 day', now() - interval '1 day'
     FROM generate_series(1, $2::int) AS i WHERE i % 10 = 0 OR i % 20 = 5`,
    [merchantId, PAYMENTS],
  );
  await db.query(
    `INSERT INTO issued_ids (kind, id) SELECT k, p || '${prefix}' || lpad(g::text, ${pad}, '0') FROM generate_series(1, $1::int) g,
       (VALUES ('order', 'OD'), ('payment', 'PR'), ('refund', 'RF')) AS v(k, p) ON CONFLICT DO NOTHING`,
    [PAYMENTS],
  );
}

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/settlement-noop.test.ts (EXPLAIN ANALYZE of a settlement run with nothing due)');
} else {
  describe('a settlement run with nothing due (D343)', () => {
    let t: TestDb;
    let deps: ReturnType<typeof testDeps>;
    let scope: Awaited<ReturnType<typeof approvedMerchant>>;

    beforeAll(async () => {
      t = await openTestDb('postgres');
      deps = testDeps(t.db);
      scope = await approvedMerchant(deps, { partnerId: 'noop_a' });
      const other = await approvedMerchant(deps, { partnerId: 'noop_b' });
      await seed(t.db, scope.merchantId, '1');
      await seed(t.db, other.merchantId, '2');
      await t.db.query('ANALYZE');
      const first = await runSettlements(deps, null);
      expect(first).toHaveLength(2);
      await t.db.query('VACUUM ANALYZE'); // as autovacuum would after a run: statistics and the visibility map
    }, 180_000);
    afterAll(async () => t?.dispose());

    const scopes: [string, () => Scope | null][] = [
      ['one merchant', () => scope.merchantScope],
      ['partner-wide', () => scope.partnerScope],
      ['every merchant (the scheduled run)', () => null],
    ];
    it.each(scopes)('%s: no Seq Scan, a handful of rows read, small estimates', async (_name, scopeOf) => {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      expect(await runSettlements({ ...deps, db: recording(t.db, seen) }, scopeOf())).toEqual([]);
      expect(seen.length).toBeGreaterThan(0);
      const problems: string[] = [];
      let read = 0;
      for (const { sql, params } of seen) {
        const { rows } = await t.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
        for (const n of walk(rows[0]!['QUERY PLAN'][0].Plan)) {
          const table = n['Relation Name'] ?? '';
          if (!HISTORY.has(table)) continue;
          if (n['Node Type'] === 'Seq Scan' && BIG.has(table)) problems.push(`Seq Scan on ${table}: ${sql.slice(0, 80)}`);
          const rowsRead = ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
          read += rowsRead;
          if (rowsRead > 20) problems.push(`${n['Node Type']} ${n['Index Name'] ?? table}: ${rowsRead} rows read`);
          if ((n['Plan Rows'] ?? 0) > 200)
            problems.push(`${n['Node Type']} ${n['Index Name'] ?? table}: planner expects ${n['Plan Rows']} rows`);
        }
      }
      expect({ problems, read: Math.min(read, 50) }).toEqual({ problems: [], read: Math.min(read, 50) });
      expect(read).toBeLessThanOrEqual(50);
    });
  });
}
