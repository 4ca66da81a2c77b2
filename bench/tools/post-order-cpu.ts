/**
 * POST /pg/orders/ (hosted checkout) of `paygate serve` on PostgreSQL against the same statements through `pg` alone
 * (bench/lib/post-baseline.ts), without the rest of the suite: the loop to use while removing per-order cost. `npm run
 * build` first.
 *
 * Each round loads the gateway with unique hosted orders (autocannon, 50 connections), then runs the pg-alone loop
 * (50 workers, the gateway's pool size) for the same time, and prints the throughput ratio (the figure `npm run bench`
 * judges), the gateway's CPU per order (user and kernel) and the pg loop's client CPU per transaction. Which side goes
 * first alternates between rounds; the median of the rounds' ratios is the figure.
 *
 * Usage: npx tsx bench/tools/post-order-cpu.ts [seconds, default 5] [rounds, default 3]
 *   BENCH_WARMUP_SECONDS  load on both sides before the rounds (default 5)
 *   BENCH_CPU_PROF=1      also writes a --cpu-prof profile (path printed; summarise it with bench/profile-summary.ts)
 *   BENCH_IDEMPOTENCY=1   every POST carries a fresh Idempotency-Key, as the generated client sends it
 *   BENCH_COMPARE_ROOT=/path/to/other/checkout (built)   also runs that checkout's gateway on the same database, and the
 *                         pg-alone loop `npm run bench` used before D174, in the same rounds: before/after in one run
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
import { BENCH_PARTNER, BENCH_PARTNER_HEADERS, benchPost, gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { load } from '../lib/load.js';
import { pgCreateOrderLoop, type PgOrderStatements } from '../lib/post-baseline.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import { defaultPoolSize } from '../../packages/reference/src/core/config.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';
import pg from 'pg';
import { randomInt } from 'node:crypto';

/**
 * The pg-alone loop of `npm run bench` before D174 (kept here only to compare with it): six unnamed statements,
 * BEGIN, merchant, id, order, session, COMMIT.
 */
const legacyStatements: PgOrderStatements = async (pool, merchantId, _partnerId, referenceId) => {
  const body = createHostedOrderBody() as { buyer: unknown; product: unknown; invoice: unknown; return_url: string };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: m } = await client.query<{ encryption_key_version: number }>(
      `SELECT kyc_status, company_details->>'brand_name' AS brand_name, partner_id, encryption_key_version,
              coalesce((SELECT mc.offset_seconds FROM merchant_clocks mc WHERE mc.merchant_id = id), 0) AS clock_offset_seconds
       FROM merchants WHERE id = $1`,
      [merchantId],
    );
    const orderId = `OD${String(randomInt(1e8)).padStart(8, '0')}${String(randomInt(1e8)).padStart(8, '0')}`;
    await client.query('INSERT INTO issued_ids (kind, id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id', ['order', orderId]);
    const now = new Date().toISOString();
    await client.query(
      `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                           upi_flow_type, vpa, upi_app_name, intent_uri, buyer, product, invoice, return_url, is_testing,
                           expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'payment_pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)
       ON CONFLICT ON CONSTRAINT orders_reference_unique DO NOTHING
       RETURNING id`,
      [
        orderId,
        merchantId,
        referenceId,
        150000,
        'INR',
        'Awaiting payment',
        'hosted_payment',
        'UPI',
        null,
        null,
        null,
        null,
        JSON.stringify(body.buyer),
        JSON.stringify(body.product),
        JSON.stringify(body.invoice),
        body.return_url,
        true,
        now,
        now,
      ],
    );
    await client.query(
      'INSERT INTO checkout_sessions (id, order_id, expires_at, created_at, encryption_key_version) VALUES ($1, $2, $3, $4, $5)',
      [`session_${orderId}_${referenceId}`, orderId, now, now, m[0]!.encryption_key_version],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
};

/** User and kernel CPU seconds of one process (all its threads), from /proc. */
function userSystemSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/**
 * CPU seconds (user + kernel) of the PostgreSQL backends serving `database` (D185: what the database itself spends
 * per order, on the same two cores). Backends present at both reads count their difference, new ones all of theirs;
 * one that exited in between is lost (the pools keep theirs open during a run). Shared server processes (WAL writer,
 * checkpointer) are not counted: other databases on the server use them too.
 */
async function backendCpu(admin: pg.Client): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const t = userSystemSeconds(pid);
      out.set(pid, t.user + t.system);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
function backendDelta(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [pid, t] of b) sum += t - (a.get(pid) ?? 0);
  return sum;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const CONNECTIONS = 50;
const POOL_SIZE = defaultPoolSize(os.availableParallelism());
const PARTNER = BENCH_PARTNER;
const headers = BENCH_PARTNER_HEADERS;
const withKey = process.env['BENCH_IDEMPOTENCY'] === '1';

const api = benchPost;

const compareRoot = process.env['BENCH_COMPARE_ROOT'];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-post-cpu-'));
const db = await createThrowawayDatabase(
  process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'paygate_postcpu',
);
const profDir = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-post-prof-')) : undefined;

async function startGateway(root: string, prof: boolean) {
  const port = await freePort();
  const child = spawnNode({
    args: [...(prof && profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), ...gatewayCommand(root)],
    cwd: root,
    port,
    env: gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: process.env['LOG_LEVEL'] ?? 'info' }),
  });
  await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 180_000, 20);
  return child;
}

console.log(
  `paygate serve on PostgreSQL, pool ${POOL_SIZE}${profDir ? ', with --cpu-prof' : ''}${withKey ? ', Idempotency-Key on every POST' : ''}${compareRoot ? `; compared with ${compareRoot}` : ''}`,
);
const child = await startGateway(ROOT, true);
const other = compareRoot ? await startGateway(compareRoot, false) : undefined;
try {
  const merchant = await api(child.url, '/partners/merchants/', createMerchantBody());
  const merchantId = String(merchant['id']);
  await api(child.url, `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  const partnerId = (await admin.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [merchantId])).rows[0]!
    .partner_id;
  const template = createHostedOrderBody();
  const postHeaders: Record<string, string> = { ...headers, 'Content-Type': 'application/json', 'X-Merchant-ID': merchantId };
  const run = Date.now();
  let n = 0;
  const gatewayLoad = (target: typeof child, durationSec: number, warmupSec: number) =>
    load({
      url: `${target.url}/pg/orders/`,
      method: 'POST',
      headers: postHeaders,
      setupRequest: (req) => ({
        ...req,
        method: 'POST',
        path: '/pg/orders/',
        headers: withKey ? { ...postHeaders, 'Idempotency-Key': randomUUID() } : postHeaders,
        body: JSON.stringify({ ...template, reference_id: `post-cpu-${run}-${n++}` }),
      }),
      connections: CONNECTIONS,
      durationSec,
      warmupSec,
      pid: target.pid,
    });
  const loopOptions = { url: db.url, merchantId, partnerId, workers: CONNECTIONS, poolSize: POOL_SIZE };
  const loop = pgCreateOrderLoop(loopOptions);
  const legacy = other ? pgCreateOrderLoop(loopOptions, legacyStatements) : undefined;
  const ratios: number[] = [];
  const before: number[] = [];
  try {
    const warmup = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 5);
    if (warmup > 0) {
      await gatewayLoad(child, warmup, 0);
      await loop.drive(warmup);
      if (other && legacy) {
        await gatewayLoad(other, warmup, 0);
        await legacy.drive(warmup);
      }
    }
    const measureGateway = async (target: typeof child) => {
      const a = userSystemSeconds(target.pid);
      const pa = await backendCpu(admin);
      const ca = process.cpuUsage();
      const r = await gatewayLoad(target, seconds, 1);
      const c = process.cpuUsage(ca);
      const b = userSystemSeconds(target.pid);
      const pgCpu = backendDelta(pa, await backendCpu(admin));
      // warm-up second included in the CPU read: per order over every order answered in those seconds
      return { r, user: b.user - a.user, system: b.system - a.system, pgCpu, loadCpu: (c.user + c.system) / 1e6 };
    };
    const measurePg = async (l: typeof loop) => {
      await l.drive(1);
      const pa = await backendCpu(admin);
      const res = await l.drive(seconds);
      return { ...res, pgCpuPerTx: backendDelta(pa, await backendCpu(admin)) / Math.max(res.rps * seconds, 1) };
    };
    const describe = (name: string, g: Awaited<ReturnType<typeof measureGateway>>) => {
      // the /proc reads (gateway, PostgreSQL backends) and the load generator's CPU span the warm-up second too: per
      // order at the measured rate over both
      const spanned = g.r.rps * (seconds + 1);
      const usSpan = (x: number) => `${((x / spanned) * 1e6).toFixed(0)} µs`;
      return (
        `${name} ${g.r.rps.toFixed(0)} orders/s (${g.r.failures} failures), ${(((g.r.serverCpu ?? NaN) / g.r.rps) * 1e6).toFixed(0)} µs CPU per order` +
        ` (user ${usSpan(g.user)}, kernel ${usSpan(g.system)}), PostgreSQL backends ${usSpan(g.pgCpu)}, load generator ${usSpan(g.loadCpu)},` +
        ` p50 ${g.r.p50} ms, machine ${g.r.machineCpu.toFixed(2)} cores`
      );
    };
    const describePg = (name: string, p: Awaited<ReturnType<typeof measurePg>>) =>
      `${name} ${p.rps.toFixed(0)} tx/s (client ${(p.cpuPerTx * 1e6).toFixed(0)} µs CPU/tx, PostgreSQL backends ${(p.pgCpuPerTx * 1e6).toFixed(0)} µs/tx), p50 ${p.p50.toFixed(1)} ms`;
    for (let round = 1; round <= rounds; round++) {
      // which side goes first alternates, so a load rising or falling during a round favours neither
      const steps: (() => Promise<void>)[] = [];
      let g!: Awaited<ReturnType<typeof measureGateway>>;
      let p!: Awaited<ReturnType<typeof measurePg>>;
      let og: Awaited<ReturnType<typeof measureGateway>> | undefined;
      let op: Awaited<ReturnType<typeof measurePg>> | undefined;
      steps.push(async () => void (g = await measureGateway(child)));
      steps.push(async () => void (p = await measurePg(loop)));
      if (other && legacy) {
        steps.push(async () => void (og = await measureGateway(other)));
        steps.push(async () => void (op = await measurePg(legacy)));
      }
      if (round % 2 === 0) steps.reverse();
      for (const step of steps) await step();
      const ratio = g.r.rps / p.rps;
      ratios.push(ratio);
      console.log(`round ${round}: ${describe('gateway', g)}; ${describePg('pg alone', p)}: ${(ratio * 100).toFixed(1)}% of pg alone`);
      if (og && op) {
        before.push(og.r.rps / op.rps);
        console.log(
          `         ${describe('compared gateway', og)}; ${describePg('pre-D174 pg loop', op)}: ${((og.r.rps / op.rps) * 100).toFixed(1)}% of it;` +
            ` this gateway: ${((g.r.rps / op.rps) * 100).toFixed(1)}% of it`,
        );
      }
    }
  } finally {
    await loop.end();
    await legacy?.end();
    await admin.end();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const list = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(1)}%`).join(', ');
  console.log(`POST order: median ${(median(ratios) * 100).toFixed(1)}% of pg alone (rounds ${list(ratios)})`);
  if (before.length > 0)
    console.log(`compared gateway vs the pre-D174 loop: median ${(median(before) * 100).toFixed(1)}% (rounds ${list(before)})`);
} finally {
  await child.stop();
  await other?.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
  if (profDir) console.log(`profile: ${path.join(profDir, readdirSync(profDir)[0] ?? '(none written)')}`);
}
