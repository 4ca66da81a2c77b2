/**
 * Every list statement's plan on PostgreSQL (issue 22, D108): each list the API offers, with each of its filters and
 * combinations of them, on the first page, a page found by cursor (forwards and backwards), is run through the real
 * service function; every statement it sends is then EXPLAINed. The history is big enough (one merchant with 20,000
 * payments beside another partner's) that after ANALYZE the planner prefers an index where one exists.
 *
 * Fails on a Seq Scan of a big table, or a Sort over one (sorting every matching row to return a page). A filter on a
 * single payment or order (payment_id, reference_id) may sort the handful of rows it found by primary/unique key.
 * A second pass with enable_seqscan and enable_sort off proves that an index serves the sort order of every list,
 * the small tables' (merchants, webhook endpoints) too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { seedHistory, type SeededHistory } from '../../packages/reference/src/testing/seed-history.js';
import { encodeCursor } from '../../packages/reference/src/core/pagination.js';
import { listPayments } from '../../packages/reference/src/payments/service.js';
import { listRefunds } from '../../packages/reference/src/refunds/service.js';
import { listSettlements } from '../../packages/reference/src/settlements/service.js';
import { listMerchants } from '../../packages/reference/src/merchants/service.js';
import { listWebhookEndpoints } from '../../packages/reference/src/webhooks/endpoints.js';
import { listWebhookDeliveries } from '../../packages/reference/src/webhooks/delivery-log.js';
import type { Db } from '../../packages/reference/src/db/db.js';
import type { ServiceDeps } from '../../packages/reference/src/core/deps.js';
import type { Scope } from '../../packages/reference/src/core/scope.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const BIG = new Set(['payments', 'orders', 'refunds', 'settlements', 'settlement_transactions', 'webhook_deliveries', 'events']);
const SORTS = new Set(['Sort', 'Incremental Sort']);

/** A generic plan may sort what it estimates to be at most this many rows (a few pages). */
const GENERIC_SORT_ROWS = 2000;

interface PlanNode {
  'Node Type': string;
  'Plan Rows'?: number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

const touchesBig = (node: PlanNode) => [...walk(node)].some((n) => n['Relation Name'] !== undefined && BIG.has(n['Relation Name']));

/** What is wrong with a plan: Seq Scans of `tables`, Sorts over them (unless `sortOk`). */
function planProblems(plan: PlanNode, tables: (name: string) => boolean, sortOk: boolean): string[] {
  const out: string[] = [];
  for (const n of walk(plan)) {
    if (n['Node Type'] === 'Seq Scan' && tables(n['Relation Name'] ?? '')) out.push(`Seq Scan on ${n['Relation Name']}`);
    if (
      SORTS.has(n['Node Type']) &&
      !sortOk &&
      (n.Plans ?? []).some((c) => touchesBig(c) || [...walk(c)].some((x) => x['Relation Name'] && tables(x['Relation Name'])))
    ) {
      out.push(
        `${n['Node Type']} over ${[...walk(n)]
          .map((x) => x['Relation Name'])
          .filter(Boolean)
          .join(', ')}`,
      );
    }
  }
  return out;
}

/** A statement for the rows of one page only (`= ANY($1::...)` of the page's ids: attempts, settlement lines) may sort them. */
const pageBound = (sql: string) => /= ANY\(\$1::(text|bigint)\[\]\)/.test(sql);

function recording(db: Db, into: { sql: string; params: readonly unknown[] }[]): Db {
  return {
    kind: db.kind,
    query: (sql, params = []) => {
      into.push({ sql, params });
      return db.query(sql, params);
    },
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    listen: (channel, listener) => db.listen(channel, listener),
    close: () => db.close(),
  };
}

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/list-plans.test.ts (EXPLAIN of every list statement)');
} else {
  describe('list plans on PostgreSQL (D108)', () => {
    let t: TestDb;
    let deps: ServiceDeps;
    let big: { merchantId: string; partnerId: string; scope: Scope; partnerScope: Scope; seeded: SeededHistory };

    beforeAll(async () => {
      t = await openTestDb('postgres');
      deps = testDeps(t.db);
      const a = await approvedMerchant(deps, { partnerId: 'plans_a' });
      const b = await approvedMerchant(deps, { partnerId: 'plans_b' });
      const small = await approvedMerchant(deps, { partnerId: 'plans_a' });
      const seeded = await seedHistory(t.db, { merchantId: a.merchantId, partnerId: a.partnerId, payments: 20_000, idPrefix: '1' });
      await seedHistory(t.db, { merchantId: b.merchantId, partnerId: b.partnerId, payments: 20_000, idPrefix: '2' });
      await seedHistory(t.db, { merchantId: small.merchantId, partnerId: small.partnerId, payments: 500, idPrefix: '3' });
      await t.db.query('VACUUM ANALYZE'); // as autovacuum would: statistics and the visibility map
      big = { merchantId: a.merchantId, partnerId: a.partnerId, scope: a.merchantScope, partnerScope: a.partnerScope, seeded };
    }, 120_000);
    afterAll(async () => {
      await t?.dispose();
    });

    const at = '2026-01-01T02:00:00.000000Z';
    const pages = [
      ['first page', () => ({})],
      ['page by cursor', (id: string) => ({ page: 700, cursor: encodeCursor({ dir: 'after', at, id }) })],
      ['page before a cursor', (id: string) => ({ page: 699, cursor: encodeCursor({ dir: 'before', at, id }) })],
    ] as const;

    /**
     * Each list the API offers with each filter and some combinations. `point`: found by primary / unique key, so a
     * Sort is over a handful of rows. `combo`: two or more of the low-cardinality filters (status, mop_type, currency,
     * dates): one of their indexes drives the walk and the planner may sort what the others leave (D108 says so).
     * `merchant_id` runs in the merchant's scope only: the handler narrows a partner's scope to it first.
     */
    const cases: [
      string,
      (s: 'merchant' | 'partner') => (deps: ServiceDeps, paging: object) => Promise<unknown>,
      { point?: boolean; scopes?: ('merchant' | 'partner')[]; id?: string },
    ][] = [];
    const scopeOf = (s: 'merchant' | 'partner') => (s === 'merchant' ? big.scope : big.partnerScope);
    const paymentFilters: [string, () => object, boolean?, ('merchant' | 'partner')[]?][] = [
      ['no filter', () => ({})],
      ['currency USD', () => ({ currency: 'USD' })],
      ['currency EUR (no match)', () => ({ currency: 'EUR' })],
      ['status FAILED', () => ({ status: 'FAILED' })],
      ['status PENDING (no match)', () => ({ status: 'PENDING' })],
      ['mop_type UPI', () => ({ mop_type: 'UPI' })],
      ['mop_type QR (no match)', () => ({ mop_type: 'QR' })],
      ['buyer_name', () => ({ buyer_name: big.seeded.buyerName })],
      ['buyer_name zzz (no match)', () => ({ buyer_name: 'zzz' })],
      ['from_created_date / to_created_date', () => ({ from_created_date: '2026-01-01', to_created_date: '2026-01-01' })],
      ['merchant_id', () => ({ merchant_id: big.merchantId }), false, ['merchant']],
      ['status + currency', () => ({ status: 'CAPTURED', currency: 'INR' })],
      // the planner may walk the buyer-name index and sort its matches (one buyer's payments: bounded, D108), or walk
      // the list's order; which one depends on the statistics of the run (seen both ways)
      ['status + mop_type + buyer_name', () => ({ status: 'CAPTURED', mop_type: 'UPI', buyer_name: big.seeded.buyerName }), true],
      [
        'dates + status + mop_type (combo, no match)',
        () => ({ from_created_date: '2026-01-01', status: 'FAILED', mop_type: 'CREDIT_CARD' }),
        true,
      ],
      // combined filters whose matches never overlap (D344 every list bounded by its page): a bounded scan (LIMIT 500) of one filter's index, never
      // its history. When that filter's own matches are about as few as the window (400 and 1,000 rows here), the
      // planner may rightly collect and sort them instead of walking in order (seen both ways): a Sort is allowed, a
      // Seq Scan is not.
      ['buyer_name + mop_type DEBIT_CARD (no common match)', () => ({ buyer_name: big.seeded.buyerName, mop_type: 'DEBIT_CARD' }), true],
      ['status FAILED + mop_type DEBIT_CARD (no common match)', () => ({ status: 'FAILED', mop_type: 'DEBIT_CARD' }), true],
      ['currency USD + status PENDING (no common match)', () => ({ currency: 'USD', status: 'PENDING' }), true],
      ['payment_id', () => ({ payment_id: big.seeded.paymentId }), true],
      ['reference_id', () => ({ reference_id: big.seeded.referenceId }), true],
      ['reference_id (no match)', () => ({ reference_id: 'no-such-reference' }), true],
      [
        'reference_id + payment_id + status',
        () => ({ reference_id: big.seeded.referenceId, payment_id: big.seeded.paymentId, status: 'CAPTURED' }),
        true,
      ],
    ];
    for (const [name, filter, point, scopes] of paymentFilters) {
      cases.push([
        `payments, ${name}`,
        (s) => (d, paging) => listPayments(d, scopeOf(s), { ...filter(), ...paging }),
        { point: point ?? false, ...(scopes ? { scopes } : {}) },
      ]);
    }
    const refundFilters: [string, () => object, boolean?, ('merchant' | 'partner')[]?][] = [
      ['no filter', () => ({})],
      ['from_date / to_date', () => ({ from_date: '2026-01-01', to_date: '2026-01-01' })],
      ['merchant_id', () => ({ merchant_id: big.merchantId }), false, ['merchant']],
      ['payment_id', () => ({ payment_id: 'PR1000000000000013' }), true],
      ['reference_id', () => ({ reference_id: 'seed-1-13' }), true],
      ['reference_id (no match) + dates', () => ({ reference_id: 'no-such-reference', from_date: '2026-01-01' }), true],
    ];
    for (const [name, filter, point, scopes] of refundFilters) {
      cases.push([
        `refunds, ${name}`,
        (s) => (d, paging) => listRefunds(d, scopeOf(s), { ...filter(), ...paging }),
        { point: point ?? false, ...(scopes ? { scopes } : {}) },
      ]);
    }
    cases.push(['settlements, no filter', (s) => (d, paging) => listSettlements(d, scopeOf(s), paging), {}]);
    cases.push([
      'settlements, from_date / to_date',
      (s) => (d, paging) => listSettlements(d, scopeOf(s), { from_date: '2026-01-01', to_date: '2026-01-02', ...paging }),
      {},
    ]);
    cases.push(['webhook endpoints', (s) => (d, paging) => listWebhookEndpoints(d, scopeOf(s), paging), {}]);
    cases.push([
      'webhook deliveries',
      (s) => (d, paging) => listWebhookDeliveries(d, scopeOf(s), big.seeded.endpointId, paging),
      { id: 'dlv_AAAAAAAAAAAAAAAAAAAAAA' },
    ]);
    cases.push([
      'webhook deliveries, status failed (no match)',
      (s) => (d, paging) => listWebhookDeliveries(d, scopeOf(s), big.seeded.endpointId, { status: 'failed', ...paging }),
      { id: 'dlv_AAAAAAAAAAAAAAAAAAAAAA' },
    ]);
    cases.push(['merchants', () => (d, paging) => listMerchants(d, big.partnerId, paging), { scopes: ['partner'] }]);

    const table = cases.flatMap(([name, make, o]) =>
      (o.scopes ?? (['merchant', 'partner'] as const)).flatMap((s) =>
        pages.map(
          ([page, paging]) => [`${name} (${s}), ${page}`, make, s, paging(o.id ?? 'PR1000000000007200'), o.point ?? false] as const,
        ),
      ),
    );

    async function explainAll(
      run: (deps: ServiceDeps) => Promise<unknown>,
      settings: string[],
    ): Promise<{ sql: string; plan: PlanNode }[]> {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      await run({ ...deps, db: recording(t.db, seen) });
      expect(seen.length).toBeGreaterThan(0);
      return t.db.transaction(async (tx) => {
        for (const s of settings) await tx.query(`SET LOCAL ${s}`);
        const out: { sql: string; plan: PlanNode }[] = [];
        for (const { sql, params } of seen) {
          const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
          out.push({ sql, plan: rows[0]!['QUERY PLAN'][0].Plan });
        }
        return out;
      });
    }

    it.each(table)('%s: no Seq Scan or Sort over a big table', async (_name, make, scope, paging, point) => {
      for (const { sql, plan } of await explainAll((d) => make(scope)(d, paging), [])) {
        expect({ sql, problems: planProblems(plan, (r) => BIG.has(r), point || pageBound(sql)) }).toEqual({ sql, problems: [] });
      }
    });

    it.each(table)('%s: an index serves it (enable_seqscan and enable_sort off)', async (_name, make, scope, paging, point) => {
      for (const { sql, plan } of await explainAll((d) => make(scope)(d, paging), ['enable_seqscan = off', 'enable_sort = off'])) {
        expect({ sql, problems: planProblems(plan, (r) => r !== '', point || pageBound(sql)) }).toEqual({ sql, problems: [] });
      }
    });

    /** A bound value as a SQL literal, for EXECUTE of a prepared statement (EXPLAIN EXECUTE takes no parameters). */
    const literal = (v: unknown): string => {
      if (v === null || v === undefined) return 'NULL';
      if (typeof v === 'number' || typeof v === 'bigint') return String(v);
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      // an array as an untyped array literal ('{"a","b"}'): PREPARE decided its type (text[] or bigint[])
      if (Array.isArray(v)) {
        const inner = `{${v.map((x) => `"${String(x).replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
        return `'${inner.replace(/'/g, "''")}'`;
      }
      return `'${String(v).replace(/'/g, "''")}'`;
    };

    /**
     * Generic plans (D344 every list bounded by its page): a prepared statement is planned for its values five times, then PostgreSQL may keep one
     * plan for any values, which no longer sees an enum value sent as a parameter. Each statement is PREPAREd and
     * EXPLAINed with plan_cache_mode = force_generic_plan.
     */
    it.each(table)('%s: its generic plan has no Seq Scan or Sort over a big table either', async (_name, make, scope, paging, point) => {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      await make(scope)({ ...deps, db: recording(t.db, seen) }, paging);
      // tables this history makes big (settlements has about 4,000 rows: a generic plan may rightly read it whole)
      const { rows: sizes } = await t.db.query<{ relname: string }>(
        `SELECT relname FROM pg_class WHERE relkind = 'r' AND reltuples > 10000 AND relname = ANY($1::text[])`,
        [[...BIG]],
      );
      const large = new Set(sizes.map((r) => r.relname));
      await t.db.transaction(async (tx) => {
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        for (const [k, { sql, params }] of seen.entries()) {
          const name = `generic_plan_${k}`;
          await tx.query(`PREPARE ${name} AS ${sql}`);
          const args = params.length > 0 ? `(${params.map(literal).join(', ')})` : '';
          const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`);
          await tx.query(`DEALLOCATE ${name}`);
          const plan = rows[0]!['QUERY PLAN'][0].Plan;
          // a generic plan estimates a tenant's rows as an average: near a page's size it may collect and sort them
          // (seen both ways here); what it must not do is read a table, or plan to sort more than a few pages' worth
          const bigSorts = [...walk(plan)]
            .filter((n) => SORTS.has(n['Node Type']) && !(point || pageBound(sql)) && (n['Plan Rows'] ?? 0) > 0)
            .filter((n) => (n.Plans ?? []).some((c) => (c['Plan Rows'] ?? 0) > GENERIC_SORT_ROWS))
            .map((n) => `${n['Node Type']} of ${(n.Plans ?? []).map((c) => c['Plan Rows']).join('+')} estimated rows`);
          expect({ sql, problems: [...planProblems(plan, (r) => large.has(r), true), ...bigSorts] }).toEqual({ sql, problems: [] });
        }
      });
    });

    it('a combined filter with no common match pages through by bounded scans to its end, finding nothing', async () => {
      let paging: { page?: number; page_size?: number; cursor?: string } = { page_size: 50 };
      const seen: [boolean, boolean][] = [];
      for (let i = 0; i < 20; i++) {
        const page = await listPayments(deps, big.scope, { status: 'FAILED', mop_type: 'DEBIT_CARD', ...paging });
        expect(page.results).toEqual([]);
        seen.push([page.incomplete_results === true, page.next !== null]);
        if (!page.next?.cursor) break;
        paging = { page: page.next.page, page_size: 50, cursor: page.next.cursor };
      }
      // 1,000 FAILED payments, 500 read per page: two full windows with a `next` to continue, then the end (each page
      // after a cursor counted only what it read, so says incomplete too)
      expect(seen).toEqual([
        [true, true],
        [true, true],
        [true, false],
      ]);
    });

    it('a combined filter with matches returns each of them once, in order, across bounded pages', async () => {
      const all: string[] = [];
      let paging: { page?: number; page_size?: number; cursor?: string } = { page_size: 250 };
      for (let i = 0; i < 50; i++) {
        const page = await listPayments(deps, big.scope, { status: 'FAILED', mop_type: 'UPI', ...paging });
        all.push(...page.results.map((r) => r.payment_id)); // the list item's payment_id is its order's id (seed sample)
        if (!page.next?.cursor) break;
        paging = { page: page.next.page, page_size: 250, cursor: page.next.cursor };
      }
      const { rows } = await t.db.query<{ id: string }>(
        `SELECT order_id AS id FROM payments WHERE merchant_id = $1 AND status = 'FAILED' AND mop_type = 'UPI' ORDER BY created_at DESC, id DESC`,
        [big.merchantId],
      );
      expect(all).toEqual(rows.map((r) => r.id));
      expect(all.length).toBeGreaterThan(500);
    });

    it('reading one payment does not count its settlement lines', async () => {
      const { getPayment } = await import('../../packages/reference/src/payments/service.js');
      const settled = 'PR1000000000000002'; // a capture line of the first seeded settlement
      await t.db.query(`UPDATE payments SET settlement_id = 'ST1000000000000001', settlement_status = 'settled' WHERE id = $1`, [settled]);
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      const payment = await getPayment({ ...deps, db: recording(t.db, seen) }, big.scope, settled);
      expect(payment.settlement).toMatchObject({ number_of_transactions: 3 });
      for (const { sql, params } of seen) {
        const { rows } = await t.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        const nodes = [...walk(rows[0]!['QUERY PLAN'][0].Plan)];
        expect(
          nodes.filter((n) => n['Node Type'] === 'Aggregate' && [...walk(n)].some((x) => x['Relation Name'] === 'settlement_transactions')),
        ).toEqual([]);
        expect(planProblems(rows[0]!['QUERY PLAN'][0].Plan, (r) => BIG.has(r), true)).toEqual([]); // one payment's refunds may be sorted
      }
    });
  });
}
