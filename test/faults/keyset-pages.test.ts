/**
 * Keyset pagination under concurrent inserts (issue 22, D108), on PostgreSQL: while a client follows `next` links
 * (and then `previous` links back), a second connection keeps inserting payments, newer than every other and with the
 * very timestamps of existing ones (ties, on both sides of the cursor). Every payment that existed when paging began
 * is seen exactly once each way, none twice, in strict (created_at, id) order. OFFSET paging would repeat a row each
 * time one is inserted ahead of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { seedHistory } from '../../packages/reference/src/testing/seed-history.js';
import { listPayments } from '../../packages/reference/src/payments/service.js';
import type { Db } from '../../packages/reference/src/db/db.js';
import type { ServiceDeps } from '../../packages/reference/src/core/deps.js';
import type { Scope } from '../../packages/reference/src/core/scope.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const SEEDED = 300;
const PAGE = 7;

if (!adminDatabaseUrl()) {
  reportNotRun('test/faults/keyset-pages.test.ts (keyset pages under concurrent inserts)');
} else {
  describe('keyset pages under concurrent inserts (D108)', () => {
    let t: TestDb;
    let writer: Db;
    let deps: ServiceDeps;
    let scope: Scope;
    let merchantId: string;

    beforeAll(async () => {
      t = await openTestDb('postgres');
      writer = await t.openSecond();
      deps = testDeps(t.db);
      const m = await approvedMerchant(deps, { partnerId: 'keyset' });
      ({ merchantId } = m);
      scope = m.merchantScope;
      await seedHistory(t.db, { merchantId, partnerId: m.partnerId, payments: SEEDED, idPrefix: '4' });
    }, 120_000);
    afterAll(async () => {
      await t?.dispose();
    });

    let inserted = 0;
    /** One new payment (and its order) at `at`, on the second connection. */
    async function insertAt(at: string): Promise<void> {
      const n = String(++inserted).padStart(15, '0');
      await writer.query(
        `WITH o AS (
           INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                               buyer, product, is_testing, expires_at, created_at, updated_at)
           VALUES ('OD9' || $2, $1, 'late-' || $2, 500, 'INR', 'payment_successful', 'ok', 'hosted_payment', 'UPI',
                   '{"name": "Late"}'::jsonb, '{}'::jsonb, true, $3::timestamptz + interval '1 day', $3, $3)
           RETURNING id)
         INSERT INTO payments (id, order_id, merchant_id, status, status_message, mop_type, collection_mode, amount_minor, currency,
                               bank_ref_num, settlement_status, created_at, updated_at)
         SELECT 'PR9' || $2, o.id, $1, 'CAPTURED', 'ok', 'UPI', 'HOSTED_PAYMENT', 500, 'INR', 'BRN', 'pending', $3, $3 FROM o`,
        [merchantId, n, at],
      );
    }

    /** Keeps inserting until `done` resolves: a new newest payment, then one tied with an existing payment's time. */
    async function insertWhile(done: Promise<unknown>, existing: string[]): Promise<number> {
      let stop = false;
      void done.finally(() => {
        stop = true;
      });
      let count = 0;
      for (let i = 0; !stop; i++) {
        await insertAt(i % 2 === 0 ? new Date(Date.UTC(2027, 0, 1) + i * 1000).toISOString() : existing[(i * 37) % existing.length]!);
        count++;
      }
      return count;
    }

    const key = (r: { created_at: string; id: string }) => `${r.created_at} ${r.id}`;

    it('following next then previous links sees every existing payment exactly once each way', async () => {
      const before = await t.db.query<{ id: string; created_at: string }>('SELECT id, created_at FROM payments WHERE merchant_id = $1', [
        merchantId,
      ]);
      const existing = new Set(before.rows.map((r) => r.id));
      expect(existing.size).toBe(SEEDED);
      const times = before.rows.map((r) => r.created_at);

      const forward: { id: string; created_at: string }[] = [];
      const walkForward = (async () => {
        let page = await listPayments(deps, scope, { page_size: PAGE });
        for (;;) {
          forward.push(...page.results);
          if (!page.next) break;
          page = await listPayments(deps, scope, { page: page.next.page, page_size: PAGE, cursor: page.next.cursor! });
        }
        return page;
      })();
      const [lastPage, insertedForward] = await Promise.all([walkForward, insertWhile(walkForward, times)]);
      expect(insertedForward).toBeGreaterThan(0);

      const seenForward = forward.filter((r) => existing.has(r.id)).map((r) => r.id);
      expect(new Set(seenForward).size).toBe(seenForward.length); // none twice
      expect(new Set(seenForward)).toEqual(existing); // none skipped
      expect(new Set(forward.map((r) => r.id)).size).toBe(forward.length);
      const keys = forward.map(key);
      expect(keys).toEqual([...keys].sort().reverse()); // strictly newest first across pages

      // and back again from the last page, through previous links, while inserts go on
      const backward: { id: string; created_at: string }[] = [];
      const walkBack = (async () => {
        let page = lastPage;
        backward.push(...[...page.results].reverse());
        while (page.previous?.cursor) {
          page = await listPayments(deps, scope, { page: page.previous.page, page_size: PAGE, cursor: page.previous.cursor });
          backward.push(...[...page.results].reverse());
        }
      })();
      const [, insertedBack] = await Promise.all([walkBack, insertWhile(walkBack, times)]);
      expect(insertedBack).toBeGreaterThan(0);
      const seenBack = backward.filter((r) => existing.has(r.id)).map((r) => r.id);
      expect(new Set(seenBack).size).toBe(seenBack.length);
      expect(new Set(seenBack)).toEqual(existing);
      const backKeys = backward.map(key);
      expect(backKeys).toEqual([...backKeys].sort());
    });
  });
}
