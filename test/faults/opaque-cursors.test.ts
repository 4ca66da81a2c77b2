/**
 * Opaque cursors: every list the API offers (payments, refunds, settlements, a settlement's transactions, merchants,
 * webhook endpoints, an endpoint's deliveries) is walked page by page, forwards to its end and back again, and every
 * cursor of every `next` / `previous` link is decoded. Each must hold only what the page shows: a direction, a
 * timestamp, and the public id of a row on the page; none may hold an internal sequence (the deliveries' bigserial,
 * the events' position, a settlement line's position), which would tell a merchant how much every tenant did between
 * two of its own pages. A settlement's transactions page by number (a position range of that one settlement): no
 * cursor at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, testTargets, type TestDb } from '../../packages/reference/src/testing/test-db.js';
import { approvedMerchant, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { seedHistory, type SeededHistory } from '../../packages/reference/src/testing/seed-history.js';
import type { Page } from '../../packages/reference/src/core/pagination.js';
import type { ServiceDeps } from '../../packages/reference/src/core/deps.js';
import type { Scope } from '../../packages/reference/src/core/scope.js';
import { listPayments } from '../../packages/reference/src/payments/service.js';
import { listRefunds } from '../../packages/reference/src/refunds/service.js';
import { listSettlements, listSettlementTransactions } from '../../packages/reference/src/settlements/service.js';
import { listMerchants } from '../../packages/reference/src/merchants/service.js';
import { listWebhookEndpoints } from '../../packages/reference/src/webhooks/endpoints.js';
import { listWebhookDeliveries } from '../../packages/reference/src/webhooks/delivery-log.js';

type Paging = { page?: number; page_size?: number; cursor?: string };
type Lister = (paging: Paging) => Promise<Page<object>>;

/** Every string and number a row shows (its public ids among them), top level and one level down. */
function shown(row: object): Set<string> {
  const out = new Set<string>();
  for (const v of Object.values(row)) {
    if (typeof v === 'string' || typeof v === 'number') out.add(String(v));
    else if (v && typeof v === 'object' && !Array.isArray(v))
      for (const w of Object.values(v)) if (typeof w === 'string' || typeof w === 'number') out.add(String(w));
  }
  return out;
}

/** Walk a list to its end by `next` and back by `previous`; every cursor with the rows of the page it came with. */
async function walkCursors(list: Lister, pageSize: number): Promise<{ cursor: string; page: object[] }[]> {
  const seen: { cursor: string; page: object[] }[] = [];
  let paging: Paging = { page_size: pageSize };
  for (let i = 0; i < 50; i++) {
    const page = await list(paging);
    for (const link of [page.next, page.previous]) if (link?.cursor) seen.push({ cursor: link.cursor, page: page.results });
    if (!page.next?.cursor) break;
    paging = { page: page.next.page, page_size: pageSize, cursor: page.next.cursor };
  }
  // and backwards from the last page
  for (let i = 0; i < 50; i++) {
    const page = await list(paging);
    for (const link of [page.next, page.previous]) if (link?.cursor) seen.push({ cursor: link.cursor, page: page.results });
    if (!page.previous?.cursor) break;
    paging = { page: page.previous.page, page_size: pageSize, cursor: page.previous.cursor };
  }
  return seen;
}

describe.each(testTargets())('opaque cursors on %s', (target) => {
  let t: TestDb;
  let deps: ServiceDeps;
  let partnerId: string;
  let merchantScope: Scope;
  let partnerScope: Scope;
  let seeded: SeededHistory;
  let internal: Set<string>;

  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
    const a = await approvedMerchant(deps, { partnerId: 'cursors' });
    const b = await approvedMerchant(deps, { partnerId: 'cursors' });
    await approvedMerchant(deps, { partnerId: 'cursors' });
    seeded = await seedHistory(t.db, { merchantId: a.merchantId, partnerId: a.partnerId, payments: 60, idPrefix: '1' });
    await seedHistory(t.db, { merchantId: b.merchantId, partnerId: b.partnerId, payments: 20, idPrefix: '2' });
    partnerId = a.partnerId;
    merchantScope = a.merchantScope;
    partnerScope = a.partnerScope;
    // the internal sequences a cursor must never carry
    const { rows } = await t.db.query<{ v: string }>(
      `SELECT id::text AS v FROM webhook_deliveries UNION SELECT position::text FROM events
       UNION SELECT position::text FROM settlement_transactions`,
    );
    internal = new Set(rows.map((r) => r.v));
  }, 120_000);
  afterAll(async () => t?.dispose());

  const lists: [string, () => Lister, number][] = [
    ['payments (merchant)', () => (q) => listPayments(deps, merchantScope, q), 7],
    ['payments (partner)', () => (q) => listPayments(deps, partnerScope, q), 13],
    ['payments, status filter', () => (q) => listPayments(deps, merchantScope, { status: 'CAPTURED', ...q }), 9],
    ['refunds', () => (q) => listRefunds(deps, partnerScope, q), 2],
    ['settlements', () => (q) => listSettlements(deps, partnerScope, q), 2],
    ['merchants', () => (q) => listMerchants(deps, partnerId, q), 1],
    ['webhook endpoints', () => (q) => listWebhookEndpoints(deps, partnerScope, q), 1],
    ['webhook deliveries', () => (q) => listWebhookDeliveries(deps, merchantScope, seeded.endpointId, q), 2],
    [
      'webhook deliveries, status filter',
      () => (q) => listWebhookDeliveries(deps, merchantScope, seeded.endpointId, { status: 'succeeded', ...q }),
      2,
    ],
  ];

  it.each(lists)('%s: every cursor holds a timestamp and a public id shown on its page, nothing internal', async (_name, make, size) => {
    const seen = await walkCursors(make(), size);
    expect(seen.length).toBeGreaterThan(2); // the list had pages to walk
    for (const { cursor, page } of seen) {
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      expect(Array.isArray(decoded) && decoded.length === 3).toBe(true);
      const [dir, at, id] = decoded as [unknown, unknown, unknown];
      expect(['a', 'b']).toContain(dir);
      expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      const onPage = new Set(page.flatMap((row) => [...shown(row)]));
      expect({ cursor, id, shownOnItsPage: onPage.has(String(id)) }).toEqual({ cursor, id, shownOnItsPage: true });
      expect({ cursor, id, internal: internal.has(String(id)) }).toEqual({ cursor, id, internal: false });
    }
  });

  it("a settlement's transactions page by number: no cursor to decode", async () => {
    const settlementId = `ST1${'1'.padStart(15, '0')}`;
    const first = await listSettlementTransactions(deps, merchantScope, settlementId, { page_size: 1 });
    expect(first.results).toHaveLength(1);
    expect(first.next).toEqual({ page: 2, cursor: null });
    const second = await listSettlementTransactions(deps, merchantScope, settlementId, { page: 2, page_size: 1 });
    expect(second.previous).toEqual({ page: 1, cursor: null });
    expect(second.next).toEqual({ page: 3, cursor: null });
  });
});
