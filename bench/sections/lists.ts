/**
 * BENCH_ONLY=lists (issue 22, D108-D110): does a list cost the same for a merchant with 100k payments as for one
 * with 1k? One `paygate serve` on PostgreSQL and one merchant: its history is written through SQL
 * (packages/reference/src/testing/seed-history.ts) to 1k payments, every list request is measured, then 99k older
 * payments are added to the same merchant and every request is measured again, in the same process. Each request
 * runs first page and last page (the page a client reaches through its links: by cursor), with and without filters.
 * Server CPU per request (the gateway process's CPU-seconds over the requests it answered, as every section measures
 * it) and p99 at both sizes; the goals: CPU growth at most 1.5x for every request, p99 under 100 ms at 100k.
 * BENCH_LISTS_MATCH=<text> measures only the requests whose name contains it.
 */
import pg from 'pg';
import { seedHistory, type SeededHistory } from '../../packages/reference/src/testing/seed-history.js';
import { encodeCursor } from '../../packages/reference/src/core/pagination.js';
import { load, type LoadResult } from '../lib/load.js';
import type { Child } from '../lib/proc.js';
import type { Budget } from '../lib/report.js';

export interface ListsBench {
  log(line: string): void;
  /** A throwaway PostgreSQL database, dropped when the run ends. */
  createDatabase(): Promise<{ url: string }>;
  /** `paygate serve` on that database (stopped when the run ends). */
  startGateway(name: string, databaseUrl: string): Promise<Child>;
  /** An approved merchant, through the API with the partner's credentials. */
  onboardMerchant(base: string): Promise<{ merchantId: string }>;
  partnerHeaders: Record<string, string>;
  /** Adds a row to the run's table (and returns it). */
  loadRow(
    section: string,
    name: string,
    r: LoadResult,
    baseline?: { name: string; rps: number; rpsPerCpu?: number | undefined },
  ): Record<string, unknown>;
}

const SMALL = 1_000;
const BIG = 100_000;
const DURATION = Number(process.env['BENCH_LISTS_DURATION'] ?? 3);
const WARMUP = Number(process.env['BENCH_LISTS_WARMUP'] ?? 1);
/** A dashboard's few concurrent readers, not a flood: p99 is a request's own time, not a queue's. */
const CONNECTIONS = Number(process.env['BENCH_LISTS_CONNECTIONS'] ?? 4);
const GROWTH_GOAL = 1.5;
const P99_GOAL_MS = 100;

interface ListRequest {
  name: string;
  /** Path and query; `scope` says whose credentials: one merchant's (X-Merchant-ID) or the partner's, partner-wide. */
  path: (s: Sizes) => string;
  scope: 'merchant' | 'partner';
}

interface Sizes {
  seeded: SeededHistory;
  /** Cursors of the last pages, read from the database (the link a client following `next` would end on). */
  last: Record<string, string>;
}

const q = (params: Record<string, string | number>) =>
  `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`;

/** BENCH_LISTS_MATCH=<text>: measure only the requests whose name contains it (a quick look at a few lists). */
const MATCH = process.env['BENCH_LISTS_MATCH'];
const ALL_REQUESTS: ListRequest[] = [
  { name: 'payments, page 1', scope: 'merchant', path: () => `/pg/payments/${q({ page_size: 10 })}` },
  {
    name: 'payments, last page (cursor)',
    scope: 'merchant',
    path: (s) => `/pg/payments/${q({ page: 2, page_size: 10, cursor: s.last['payments']! })}`,
  },
  { name: 'payments, page 100 by number', scope: 'merchant', path: () => `/pg/payments/${q({ page: 100, page_size: 10 })}` },
  { name: 'payments, buyer_name=zzz (no match)', scope: 'merchant', path: () => `/pg/payments/${q({ buyer_name: 'zzz' })}` },
  { name: 'payments, buyer_name (matches)', scope: 'merchant', path: (s) => `/pg/payments/${q({ buyer_name: s.seeded.buyerName })}` },
  { name: 'payments, reference_id=<one>', scope: 'merchant', path: (s) => `/pg/payments/${q({ reference_id: s.seeded.referenceId })}` },
  { name: 'payments, status=FAILED', scope: 'merchant', path: () => `/pg/payments/${q({ status: 'FAILED' })}` },
  { name: 'payments, mop_type=QR (no match)', scope: 'merchant', path: () => `/pg/payments/${q({ mop_type: 'QR' })}` },
  {
    name: 'payments, status=CAPTURED&currency=INR',
    scope: 'merchant',
    path: () => `/pg/payments/${q({ status: 'CAPTURED', currency: 'INR' })}`,
  },
  {
    // two filters whose matches never overlap (issue 33): a bounded scan of the buyer's payments, never their history
    name: 'payments, combined filter: buyer_name&mop_type=DEBIT_CARD (no common match)',
    scope: 'merchant',
    path: (s) => `/pg/payments/${q({ buyer_name: s.seeded.buyerName, mop_type: 'DEBIT_CARD' })}`,
  },
  {
    name: 'payments, combined filter: status=FAILED&mop_type=UPI (matches)',
    scope: 'merchant',
    path: () => `/pg/payments/${q({ status: 'FAILED', mop_type: 'UPI' })}`,
  },
  { name: 'payments partner-wide, page 1', scope: 'partner', path: () => `/pg/payments/${q({ page_size: 10 })}` },
  {
    name: 'payments partner-wide, last page (cursor)',
    scope: 'partner',
    path: (s) => `/pg/payments/${q({ page: 2, page_size: 10, cursor: s.last['payments']! })}`,
  },
  { name: 'refunds, page 1', scope: 'merchant', path: () => `/pg/refunds${q({ page_size: 10 })}` },
  {
    name: 'refunds, last page (cursor)',
    scope: 'merchant',
    path: (s) => `/pg/refunds${q({ page: 2, page_size: 10, cursor: s.last['refunds']! })}`,
  },
  { name: 'refunds, reference_id=<one>', scope: 'merchant', path: (s) => `/pg/refunds${q({ reference_id: s.seeded.refundReferenceId })}` },
  { name: 'refunds partner-wide, page 1', scope: 'partner', path: () => `/pg/refunds${q({ page_size: 10 })}` },
  { name: 'settlements, page 1 (default size)', scope: 'merchant', path: () => '/pg/settlements' },
  {
    name: 'settlements, last page (cursor)',
    scope: 'merchant',
    path: (s) => `/pg/settlements${q({ page: 2, cursor: s.last['settlements']! })}`,
  },
  { name: 'webhook deliveries, page 1', scope: 'merchant', path: (s) => `/webhooks/endpoints/${s.seeded.endpointId}/deliveries` },
  {
    name: 'webhook deliveries, last page (cursor)',
    scope: 'merchant',
    path: (s) => `/webhooks/endpoints/${s.seeded.endpointId}/deliveries${q({ page: 2, cursor: s.last['deliveries']! })}`,
  },
  {
    name: 'webhook deliveries, status=failed (no match)',
    scope: 'merchant',
    path: (s) => `/webhooks/endpoints/${s.seeded.endpointId}/deliveries${q({ status: 'failed' })}`,
  },
  { name: 'webhook endpoints, page 1', scope: 'merchant', path: () => '/webhooks/endpoints' },
  { name: 'merchants, page 1', scope: 'partner', path: () => '/partners/merchants/' },
];
const REQUESTS = MATCH ? ALL_REQUESTS.filter((r) => r.name.includes(MATCH)) : ALL_REQUESTS;

/** The `after` cursor whose page is the list's last: the key of the (size+1)-th oldest row. */
async function lastCursor(db: pg.Client, sql: string, params: unknown[], size: number): Promise<string> {
  const { rows } = await db.query<{ at: Date; id: string }>(`${sql} OFFSET ${size} LIMIT 1`, params);
  const row = rows[0];
  if (!row) throw new Error(`no row for the last page: ${sql}`);
  const iso = row.at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  return encodeCursor({ dir: 'after', at: iso, id: String(row.id) });
}

async function lastCursors(db: pg.Client, merchantId: string, endpointId: string): Promise<Record<string, string>> {
  return {
    payments: await lastCursor(
      db,
      'SELECT created_at AS at, id FROM payments WHERE merchant_id = $1 ORDER BY created_at, id',
      [merchantId],
      10,
    ),
    refunds: await lastCursor(
      db,
      'SELECT created_at AS at, id FROM refunds WHERE merchant_id = $1 ORDER BY created_at, id',
      [merchantId],
      10,
    ),
    settlements: await lastCursor(
      db,
      'SELECT completed_at AS at, id FROM settlements WHERE merchant_id = $1 ORDER BY completed_at, id',
      [merchantId],
      10,
    ),
    deliveries: await lastCursor(
      db,
      'SELECT created_at AS at, id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id',
      [endpointId],
      10,
    ),
  };
}

const cpuPerRequestMs = (r: LoadResult) => (r.serverCpu !== null && r.rps > 0 ? (r.serverCpu / r.rps) * 1000 : Number.NaN);

interface Measured {
  name: string;
  small: LoadResult;
  big: LoadResult;
  bytesSmall: number;
  bytesBig: number;
}
const measured: Measured[] = [];

export async function runLists(b: ListsBench): Promise<void> {
  b.log(
    `lists. every list at ${SMALL} and ${BIG} payments of one merchant on PostgreSQL (seeded through SQL); ${CONNECTIONS} connections, ${WARMUP} s + ${DURATION} s per request`,
  );
  const database = await b.createDatabase();
  const child = await b.startGateway('gateway-lists', database.url);
  const { merchantId } = await b.onboardMerchant(child.url);
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [merchantId]);
    const partnerId = rows[0]!.partner_id;
    const headers = { merchant: { ...b.partnerHeaders, 'X-Merchant-ID': merchantId }, partner: b.partnerHeaders };

    const seedAndMeasure = async (label: string, payments: number, idPrefix: string, startIso: string) => {
      const t = performance.now();
      const seeded = await seedHistory(db, { merchantId, partnerId, payments, idPrefix, startIso });
      await db.query('VACUUM ANALYZE'); // as autovacuum would after a bulk load: statistics and the visibility map
      b.log(
        `  seeded ${payments} payments (+ refunds, settlements, deliveries) through SQL in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      const sizes: Sizes = { seeded, last: await lastCursors(db, merchantId, seeded.endpointId) };
      if (label === '1k') {
        // every route and statement warmed (JIT, prepared statements) before the first figure, so the small history
        // is not measured on a cold process and the growth flattered
        for (const req of REQUESTS)
          await load({
            url: `${child.url}${req.path(sizes)}`,
            headers: headers[req.scope],
            connections: CONNECTIONS,
            durationSec: 1,
            warmupSec: 0,
          });
      }
      const out = new Map<string, { r: LoadResult; bytes: number }>();
      for (const req of REQUESTS) {
        const url = `${child.url}${req.path(sizes)}`;
        const probe = await fetch(url, { headers: headers[req.scope] });
        const body = await probe.text();
        if (!probe.ok) throw new Error(`${req.name}: ${probe.status} ${body.slice(0, 300)}`);
        const r = await load({
          url,
          headers: headers[req.scope],
          connections: CONNECTIONS,
          durationSec: DURATION,
          warmupSec: WARMUP,
          pid: child.pid,
        });
        out.set(req.name, { r, bytes: Buffer.byteLength(body) });
        b.log(
          `    ${label} ${req.name}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, ${cpuPerRequestMs(r).toFixed(2)} ms server CPU/request, ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB`,
        );
      }
      return out;
    };

    // the small history is the newest: the big one is added under it, so the first pages stay the same rows
    const small = await seedAndMeasure('1k', SMALL, '1', '2026-06-01T00:00:00Z');
    const big = await seedAndMeasure('100k', BIG - SMALL, '2', '2025-01-01T00:00:00Z');
    for (const req of REQUESTS) {
      const s = small.get(req.name)!;
      const l = big.get(req.name)!;
      b.loadRow('lists', `${req.name} @1k`, s.r);
      b.loadRow('lists', `${req.name} @100k`, l.r, {
        name: '@1k',
        rps: s.r.rps,
        rpsPerCpu: s.r.serverCpu ? s.r.rps / s.r.serverCpu : undefined,
      });
      measured.push({ name: req.name, small: s.r, big: l.r, bytesSmall: s.bytes, bytesBig: l.bytes });
    }
    b.log(
      `  ${'request'.padEnd(44)} ${'CPU ms/req 1k'.padStart(13)} ${'100k'.padStart(7)} ${'growth'.padStart(7)} ${'p99 1k'.padStart(7)} ${'p99 100k'.padStart(9)} ${'KiB 100k'.padStart(9)}`,
    );
    for (const m of measured) {
      b.log(
        `  ${m.name.padEnd(44)} ${cpuPerRequestMs(m.small).toFixed(2).padStart(13)} ${cpuPerRequestMs(m.big).toFixed(2).padStart(7)} ${growth(m).toFixed(2).padStart(6)}x ${m.small.p99.toFixed(0).padStart(7)} ${m.big.p99.toFixed(0).padStart(9)} ${(m.bytesBig / 1024).toFixed(1).padStart(9)}`,
      );
    }
  } finally {
    await db.end();
    await child.stop();
  }
}

const growth = (m: Measured) => cpuPerRequestMs(m.big) / cpuPerRequestMs(m.small);

/** The section's goals, for the report: the worst request of each. */
export function listsBudgets(): Budget[] {
  if (measured.length === 0) return [];
  const worstGrowth = measured.reduce((a, m) => (growth(m) > growth(a) ? m : a));
  const worstP99 = measured.reduce((a, m) => (m.big.p99 > a.big.p99 ? m : a));
  const over = measured.filter((m) => growth(m) > GROWTH_GOAL).map((m) => m.name);
  return [
    {
      name: `Lists: server CPU per request, ${BIG / 1000}k / ${SMALL / 1000}k payments (worst of ${measured.length} requests)`,
      target: `<= ${GROWTH_GOAL}x each`,
      value: `${growth(worstGrowth).toFixed(2)}x (${worstGrowth.name}: ${cpuPerRequestMs(worstGrowth.small).toFixed(2)} -> ${cpuPerRequestMs(worstGrowth.big).toFixed(2)} ms)${over.length ? `; over: ${over.join(', ')}` : ''}`,
      met: growth(worstGrowth) <= GROWTH_GOAL,
    },
    {
      name: `Lists: p99 at ${BIG / 1000}k payments (worst of ${measured.length} requests, ${CONNECTIONS} connections)`,
      target: `< ${P99_GOAL_MS} ms`,
      value: `${worstP99.big.p99} ms (${worstP99.name})`,
      met: worstP99.big.p99 < P99_GOAL_MS,
    },
  ];
}
