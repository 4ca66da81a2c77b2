/**
 * `npm run bench`: the performance suite. Every server under test runs in its own child process (the load generator,
 * autocannon, runs here and never shares its event loop); every figure is reported with the baseline measured in
 * the same run and the ratio to it. Writes bench/results/latest.json.
 *
 * Environment: BENCH_DURATION (s per measured run, default 5), BENCH_WARMUP (s, default 1), BENCH_CONNECTIONS
 * (default 50), BENCH_ONLY (comma list of sections: baselines,validation,client,gateway,post,coldstart,generators),
 * BENCH_ADMIN_URL (PostgreSQL admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_CPU_PROF=1 (servers run with --cpu-prof; profiles go to a temp dir printed at the end).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPaygateClient } from '@paygate/client';
import { measureGenerators, type GeneratorBench } from './generate.js';
import { createHostedOrderBody, createMerchantBody, orderEnvelope } from './lib/fixtures.js';
import { load, type LoadResult } from './lib/load.js';
import { freePort, httpOk, spawnNode, waitUntil, type Child } from './lib/proc.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../packages/reference/src/testing/test-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env['BENCH_DURATION'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 1);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const ONLY = process.env['BENCH_ONLY']?.split(',').map((s) => s.trim()) ?? null;
const ADMIN_URL = process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PROFILE_DIR = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-prof-')) : null;
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const BODY = JSON.stringify(orderEnvelope());

const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
const want = (section: string) => ONLY === null || ONLY.includes(section);

// ---------------------------------------------------------------------------------------------------------------
// helpers

const cleanups: (() => Promise<void> | void)[] = [];

async function startServer(name: string, args: string[], env: Record<string, string | undefined> = {}, probePath = '/pg/orders/OD1000000000000001', headers: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const prof = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawnNode({ args: [...prof, ...args], cwd: ROOT, port, env: { BENCH_BODY: BODY, ...env } });
  cleanups.push(() => child.stop());
  await waitUntil(child, httpOk(`${child.url}${probePath}`, headers), performance.now(), 60_000, 20);
  return child;
}

interface Row {
  section: string;
  name: string;
  rps?: number;
  p50?: number;
  p99?: number;
  rssPeakMiB?: number | null;
  failures?: number;
  baseline?: string;
  ratio?: number;
  note?: string;
  [k: string]: unknown;
}
const rows: Row[] = [];

function loadRow(section: string, name: string, r: LoadResult, baseline?: { name: string; rps: number; rpsPerCpu?: number | undefined }, note?: string): Row {
  const row: Row = { section, name, rps: r.rps, p50: r.p50, p99: r.p99, rssPeakMiB: r.rssPeakMiB, failures: r.failures, serverCpu: r.serverCpu, machineCpu: r.machineCpu };
  if (r.serverCpu) row['rpsPerCpu'] = r.rps / r.serverCpu;
  if (baseline) {
    row.baseline = baseline.name;
    row.ratio = r.rps / baseline.rps;
    if (r.serverCpu && baseline.rpsPerCpu) row['cpuRatio'] = r.rps / r.serverCpu / baseline.rpsPerCpu;
  }
  if (note) row.note = note;
  if (r.failures > 0) log(`  WARNING: ${r.failures} of ${r.total} requests failed (non-2xx, errors or timeouts)`);
  log(`  ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.rssPeakMiB ? `, RSS peak ${r.rssPeakMiB.toFixed(0)} MiB` : ''}, CPU server ${r.serverCpu?.toFixed(2) ?? '?'} / machine ${r.machineCpu.toFixed(2)} cores${row.ratio !== undefined ? `, ${(row.ratio * 100).toFixed(0)}% of ${baseline!.name}` : ''}${row['cpuRatio'] !== undefined ? ` (${((row['cpuRatio'] as number) * 100).toFixed(0)}% per server CPU-second)` : ''}`);
  rows.push(row);
  return row;
}

async function loadServer(child: Child, path: string, headers: Record<string, string> = {}) {
  return load({ url: `${child.url}${path}`, headers, connections: CONNECTIONS, durationSec: DURATION, warmupSec: WARMUP, pid: child.pid });
}

/** Requests per second of server CPU: throughput at one saturated core, robust to other load on the machine. */
const perCpu = (r: LoadResult) => (r.serverCpu ? r.rps / r.serverCpu : undefined);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function api(base: string, method: string, p: string, body?: unknown, extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...extra },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An approved merchant and one hosted order, through the API (partner credentials). */
async function seed(base: string): Promise<{ merchantId: string; orderId: string }> {
  const merchant = await api(base, 'POST', '/partners/merchants/', createMerchantBody());
  const merchantId = String((merchant['data'] as Record<string, unknown>)['id']);
  await api(base, 'POST', `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const order = await api(base, 'POST', '/pg/orders/', { ...createHostedOrderBody(), reference_id: `bench-seed-${Date.now()}` }, { 'X-Merchant-ID': merchantId });
  return { merchantId, orderId: String((order['data'] as Record<string, unknown>)['order_id']) };
}

const partnerHeaders = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
const gatewayEnv = (db: { dataDir?: string; databaseUrl?: string }) => ({
  PAYGATE_PARTNER_CLIENT_ID: PARTNER.id,
  PAYGATE_PARTNER_CLIENT_SECRET: PARTNER.secret,
  PAYGATE_DATA_DIR: db.dataDir ?? path.join(os.tmpdir(), 'paygate-bench-unused'),
  DATABASE_URL: db.databaseUrl,
  LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'info',
});

// ---------------------------------------------------------------------------------------------------------------
// sections

const baselines: { express?: LoadResult; http?: LoadResult; expressRss?: number | null } = {};

async function runBaselines(): Promise<void> {
  log('1. Baselines: bare Express 5 and bare node:http, fixed Order JSON (' + BODY.length + ' bytes)');
  for (const [key, file, label] of [
    ['express', 'bench/servers/bare-express.mjs', 'bare Express 5'],
    ['http', 'bench/servers/bare-http.mjs', 'bare node:http'],
  ] as const) {
    const child = await startServer(`baseline-${key}`, [file]);
    const r = await loadServer(child, '/pg/orders/OD1000000000000001');
    await child.stop();
    baselines[key] = r;
    loadRow('baselines', label, r, key === 'http' && baselines.express ? { name: 'bare Express', rps: baselines.express.rps, rpsPerCpu: perCpu(baselines.express) } : undefined);
  }
}

async function runValidation(): Promise<void> {
  log('4. Validation overhead (trivial handler, no auth, no database)');
  let plain: LoadResult | undefined;
  for (const [mode, label] of [
    ['plain', 'plain Express route (same body parsers)'],
    ['request', 'createApp: request validation, precompiled'],
    ['response', 'createApp: request (precompiled) + response validation'],
  ] as const) {
    const child = await startServer(`validation-${mode}`, ['bench/servers/validation.mjs', mode]);
    const r = await loadServer(child, '/pg/orders/OD1000000000000001');
    await child.stop();
    if (mode === 'plain') plain = r;
    const row = loadRow('validation', label, r, plain && mode !== 'plain' ? { name: 'plain route', rps: plain.rps, rpsPerCpu: perCpu(plain) } : undefined);
    if (row.ratio !== undefined) row['overhead'] = 1 - row.ratio;
  }
}

async function runClient(): Promise<void> {
  log('5. Client overhead: generated client vs raw fetch, in-process, against bare Express (fixed Order)');
  const child = await startServer('client-target', ['bench/servers/bare-express.mjs']);
  const client = createPaygateClient({ baseUrl: child.url, clientId: PARTNER.id, clientSecret: PARTNER.secret, maxRetries: 0 });
  const id = 'OD1000000000000001';
  const viaFetch = async () => {
    const res = await fetch(`${child.url}/pg/orders/${id}`, { headers: partnerHeaders });
    const body = (await res.json()) as { success?: boolean };
    if (!res.ok || body.success !== true) throw new Error('fetch failed');
  };
  const viaClient = async () => {
    const r = await client.orders.get(id);
    if (!r.ok) throw new Error('client failed');
  };
  const seqN = 1500;
  const concN = 6000;
  const concurrency = CONNECTIONS;
  const sequential = async (fn: () => Promise<void>) => {
    const t = performance.now();
    for (let i = 0; i < seqN; i++) await fn();
    return seqN / ((performance.now() - t) / 1000);
  };
  const concurrent = async (fn: () => Promise<void>) => {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < concN) await fn();
      }),
    );
    return concN / ((performance.now() - t) / 1000);
  };
  // warm-up both paths, then alternate three times and keep each path's best (least disturbed) run
  await sequential(viaFetch);
  await sequential(viaClient);
  const best = { fetchSeq: 0, clientSeq: 0, fetchConc: 0, clientConc: 0 };
  for (let i = 0; i < 3; i++) {
    best.fetchSeq = Math.max(best.fetchSeq, await sequential(viaFetch));
    best.clientSeq = Math.max(best.clientSeq, await sequential(viaClient));
    best.fetchConc = Math.max(best.fetchConc, await concurrent(viaFetch));
    best.clientConc = Math.max(best.clientConc, await concurrent(viaClient));
  }
  await child.stop();
  for (const [name, f, c] of [
    [`sequential (${seqN} calls)`, best.fetchSeq, best.clientSeq],
    [`concurrent (${concN} calls, ${concurrency} in flight)`, best.fetchConc, best.clientConc],
  ] as const) {
    rows.push({ section: 'client', name: `raw fetch, ${name}`, rps: f });
    rows.push({ section: 'client', name: `generated client, ${name}`, rps: c, baseline: 'raw fetch', ratio: c / f, overhead: 1 - c / f });
    log(`  ${name}: fetch ${f.toFixed(0)} calls/s, client ${c.toFixed(0)} calls/s (overhead ${((1 - c / f) * 100).toFixed(1)}%)`);
  }
}

type Database = ThrowawayDatabase;

async function createDatabase(): Promise<Database> {
  const db = await createThrowawayDatabase(ADMIN_URL, 'paygate_bench');
  cleanups.push(() => db.drop());
  return db;
}

const gateway: { pgliteDir?: string; pgliteOrder?: string; db?: Database; pgOrder?: string; merchantId?: string } = {};

async function runGateway(): Promise<void> {
  log('2. GET /pg/orders/{order_id} on the reference gateway (auth + rate limit + validation + 1 read), NODE_ENV=production');
  const bare = baselines.express ? { name: 'bare Express', rps: baselines.express.rps, rpsPerCpu: perCpu(baselines.express) } : undefined;
  // PGlite (a data dir that persists for the cold-start section)
  gateway.pgliteDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-pglite-'));
  cleanups.push(() => rmSync(gateway.pgliteDir!, { recursive: true, force: true }));
  {
    const child = await startServer('gateway-pglite', ['bench/servers/reference.mjs'], gatewayEnv({ dataDir: gateway.pgliteDir }), '/healthz');
    const { orderId } = await seed(child.url);
    gateway.pgliteOrder = orderId;
    const r = await loadServer(child, `/pg/orders/${orderId}`, partnerHeaders);
    await child.stop();
    loadRow('gateway', 'GET order, PGlite', r, bare);
  }
  // PostgreSQL
  gateway.db = await createDatabase();
  {
    const child = await startServer('gateway-postgres', ['bench/servers/reference.mjs'], gatewayEnv({ databaseUrl: gateway.db.url }), '/healthz');
    const { orderId, merchantId } = await seed(child.url);
    gateway.pgOrder = orderId;
    gateway.merchantId = merchantId;
    const r = await loadServer(child, `/pg/orders/${orderId}`, partnerHeaders);
    loadRow('gateway', 'GET order, PostgreSQL', r, bare);
    if (want('post')) await runPost(child);
    await child.stop();
  }
}

async function runPost(child: Child): Promise<void> {
  log('3. POST /pg/orders/ (hosted) on PostgreSQL, unique reference_id per request; vs the same transaction through pg alone');
  const template = createHostedOrderBody();
  const run = Date.now();
  let n = 0;
  const headers = { ...partnerHeaders, 'Content-Type': 'application/json', 'X-Merchant-ID': gateway.merchantId! };
  const r = await load({
    url: `${child.url}/pg/orders/`,
    method: 'POST',
    headers,
    setupRequest: (req) => ({ ...req, method: 'POST', path: '/pg/orders/', headers, body: JSON.stringify({ ...template, reference_id: `bench-${run}-${n++}` }) }),
    connections: CONNECTIONS,
    durationSec: DURATION,
    warmupSec: WARMUP,
    pid: child.pid,
  });
  const loop = await pgInsertLoop(gateway.db!.url, gateway.merchantId!);
  rows.push({ section: 'post', name: `pg alone: createOrder transaction (6 statements), ${CONNECTIONS} workers, pool 10`, rps: loop.rps, p50: loop.p50, p99: loop.p99 });
  log(`  pg alone: ${loop.rps.toFixed(0)} tx/s, p50 ${loop.p50.toFixed(1)} ms, p99 ${loop.p99.toFixed(1)} ms`);
  loadRow('post', 'POST order (hosted), PostgreSQL', r, { name: 'pg alone', rps: loop.rps });
}

/** The createOrder transaction's statements (hosted), straight through `pg` with the gateway's pool size. */
async function pgInsertLoop(url: string, merchantId: string): Promise<{ rps: number; p50: number; p99: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c TimeZone=UTC' });
  const body = createHostedOrderBody() as { buyer: unknown; product: unknown; invoice: unknown; return_url: string };
  const run = Date.now();
  let n = 0;
  const one = async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT kyc_status, company_details->>'brand_name' AS brand_name, partner_id FROM merchants WHERE id = $1`, [merchantId]);
      const { rows: ids } = await client.query<{ v: string }>(`SELECT nextval('order_id_seq') AS v`);
      const orderId = `OD${String(ids[0]!.v).padStart(16, '0')}`;
      const now = new Date().toISOString();
      await client.query(
        `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                             upi_flow_type, vpa, upi_app_name, intent_uri, buyer, product, invoice, return_url, is_testing,
                             expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'payment_pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)
         ON CONFLICT ON CONSTRAINT orders_reference_unique DO NOTHING
         RETURNING id`,
        [orderId, merchantId, `pgloop-${run}-${n++}`, 150000, 'INR', 'Awaiting payment', 'hosted_payment', 'UPI', null, null, null, null,
          JSON.stringify(body.buyer), JSON.stringify(body.product), JSON.stringify(body.invoice), body.return_url, true, now, now],
      );
      await client.query('INSERT INTO checkout_sessions (id, order_id, expires_at, created_at) VALUES ($1, $2, $3, $4)', [
        `session_${orderId}_${run}`, orderId, now, now,
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  const drive = async (seconds: number) => {
    const latencies: number[] = [];
    const end = performance.now() + seconds * 1000;
    let done = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const t = performance.now();
          await one();
          latencies.push(performance.now() - t);
          done++;
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    return { rps: done / seconds, p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
  };
  try {
    await drive(WARMUP);
    return await drive(DURATION);
  } finally {
    await pool.end();
  }
}

async function runColdStart(): Promise<void> {
  log('6. Cold start: spawn -> first 200 (polled every 5 ms), median of 3');
  const cli = existsSync(path.join(ROOT, 'packages/reference/bin/paygate.js')) ? 'packages/reference/bin/paygate.js' : 'packages/reference/dist/cli.js';
  const measure = async (name: string, args: string[], env: Record<string, string | undefined>, probe: string, headers: Record<string, string> = {}) => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const t = performance.now();
      const child = spawnNode({ args, cwd: ROOT, port, env: { BENCH_BODY: BODY, LOG_LEVEL: 'warn', ...env } });
      try {
        times.push(await waitUntil(child, httpOk(`${child.url}${probe}`, headers), t, 30_000, 5));
      } finally {
        await child.stop();
      }
    }
    return median(times);
  };
  // baseline: bare Express on bare node, as the CLI runs
  const bareMs = await measure('bare Express', ['bench/servers/bare-express.mjs'], {}, '/pg/orders/OD1000000000000001');
  rows.push({ section: 'coldstart', name: 'bare Express 5', ms: bareMs });
  log(`  bare Express: ${bareMs.toFixed(0)} ms`);
  const targets: [string, Record<string, string | undefined>, string | undefined][] = [];
  if (gateway.pgliteDir && gateway.pgliteOrder) targets.push(['paygate serve, existing PGlite data dir', gatewayEnv({ dataDir: gateway.pgliteDir }), gateway.pgliteOrder]);
  if (gateway.db && gateway.pgOrder) targets.push(['paygate serve, PostgreSQL (migrated)', gatewayEnv({ databaseUrl: gateway.db.url }), gateway.pgOrder]);
  // Each target in production mode as spawnNode runs it (no response validation: express-openapi-validator is not
  // loaded at all), and with NODE_ENV=development (responses validated by express-openapi-validator).
  const variants: [string, Record<string, string | undefined>][] = [
    ['precompiled', {}],
    ['precompiled, NODE_ENV=development', { NODE_ENV: 'development' }],
  ];
  for (const [target, env, orderId] of targets) {
    for (const [variant, extra] of variants) {
      const name = `${target} (${variant})`;
      const ms = await measure(name, [cli, 'serve'], { ...env, ...extra, LOG_LEVEL: 'warn' }, `/pg/orders/${orderId}`, partnerHeaders);
      rows.push({ section: 'coldstart', name, ms, baseline: 'bare Express', ratio: ms / bareMs });
      log(`  ${name}: ${ms.toFixed(0)} ms (${(ms / bareMs).toFixed(1)}x bare Express)`);
    }
  }
}

let generators: GeneratorBench | undefined;
async function runGenerators(): Promise<void> {
  log('7. Generators (bench/generate.ts, each run in a fresh process)');
  generators = await measureGenerators((l) => log(`  ${l}`));
  for (const { label, measurement: m } of generators.rows) {
    rows.push({ section: 'generators', name: label, ms: m.ms, maxRssMiB: m.maxRssMiB, peakHeapMiB: m.peakHeapMiB, note: m.detail });
  }
  for (const g of generators.ratios) {
    log(`  ${g.spec}, ours / openapi-typescript: time ${g.time.toFixed(2)}x, max RSS ${g.maxRss.toFixed(2)}x, peak heap ${g.peakHeap.toFixed(2)}x`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// budgets, table, json

interface Budget {
  name: string;
  target: string;
  value: string;
  met: boolean | null;
}

function budgets(): Budget[] {
  const find = (section: string, prefix: string) => rows.find((r) => r.section === section && r.name.startsWith(prefix));
  const out: Budget[] = [];
  // Ratios per server CPU-second when measured (robust to other processes on the machine), raw req/s ratio beside.
  const eff = (r: Row) => (typeof r['cpuRatio'] === 'number' ? (r['cpuRatio'] as number) : r.ratio!);
  const both = (r: Row, f: (x: number) => number) => `${pct(f(eff(r)))} per CPU-s (raw req/s: ${pct(f(r.ratio!))})`;
  for (const r of rows.filter((x) => x.section === 'validation' && x.ratio !== undefined)) {
    out.push({ name: `Validation overhead, ${r.name.replace('createApp: ', '')}`, target: '<= 10%', value: both(r, (x) => 1 - x), met: 1 - eff(r) <= 0.1 });
  }
  const getPg = find('gateway', 'GET order, PostgreSQL');
  if (getPg?.ratio !== undefined) out.push({ name: 'GET order on PostgreSQL vs bare Express', target: '>= 60%', value: both(getPg, (x) => x), met: eff(getPg) >= 0.6 });
  for (const r of rows.filter((x) => x.section === 'client' && x.name.startsWith('generated'))) {
    out.push({ name: `Client overhead, ${r.name.replace('generated client, ', '')}`, target: '<= 5%', value: pct(r['overhead'] as number), met: (r['overhead'] as number) <= 0.05 });
  }
  for (const variant of ['precompiled', 'precompiled, NODE_ENV=development']) {
    const cold = rows.find((r) => r.section === 'coldstart' && r.name === `paygate serve, existing PGlite data dir (${variant})`);
    if (cold) out.push({ name: `Cold start, existing PGlite data dir (${variant})`, target: '< 1.5 s', value: `${((cold['ms'] as number) / 1000).toFixed(2)} s`, met: (cold['ms'] as number) < 1500 });
  }
  for (const r of rows.filter((x) => x.section === 'gateway' || x.section === 'post')) {
    if (r.rssPeakMiB) out.push({ name: `Server RSS under load, ${r.name}`, target: '< 200 MB', value: `${((r.rssPeakMiB * 1024 * 1024) / 1e6).toFixed(0)} MB`, met: (r.rssPeakMiB * 1024 * 1024) / 1e6 < 200 });
  }
  return out;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(): string {
  const lines: string[] = [];
  const head = ['Section', 'Run', 'req/s', 'p50 ms', 'p99 ms', 'RSS MiB', 'CPU srv/all', 'vs baseline'];
  const body = rows.map((r) => {
    const per = typeof r['cpuRatio'] === 'number' ? ` (${pct(r['cpuRatio'] as number)} per CPU-s)` : '';
    const ratio = r.ratio !== undefined ? `${r.section === 'coldstart' ? `${r.ratio.toFixed(1)}x` : pct(r.ratio)} of ${r.baseline}${per}` : '';
    if (r.section === 'coldstart') return [r.section, r.name, '', '', '', '', '', `${(r['ms'] as number).toFixed(0)} ms${ratio ? `, ${ratio}` : ''}`];
    if (r.section === 'generators') return [r.section, r.name, '', '', '', (r['maxRssMiB'] as number).toFixed(0), '', `${((r['ms'] as number) / 1000).toFixed(2)} s, ${r.note ?? ''}`];
    const cpu = typeof r['machineCpu'] === 'number' ? `${typeof r['serverCpu'] === 'number' ? (r['serverCpu'] as number).toFixed(2) : '-'}/${(r['machineCpu'] as number).toFixed(2)}` : '';
    return [r.section, r.name, r.rps?.toFixed(0) ?? '', r.p50?.toFixed(1) ?? '', r.p99?.toFixed(1) ?? '', r.rssPeakMiB ? r.rssPeakMiB.toFixed(0) : '', cpu, ratio];
  });
  if (generators) {
    for (const g of generators.ratios) {
      body.push(['generators', `${g.spec}: ours / openapi-typescript`, '', '', '', '', '', `time ${g.time.toFixed(2)}x, max RSS ${g.maxRss.toFixed(2)}x, heap ${g.peakHeap.toFixed(2)}x`]);
    }
  }
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => `| ${r.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  lines.push(fmt(head), `|${widths.map((w, i) => (i >= 2 && i <= 6 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...body.map(fmt));
  return lines.join('\n');
}

async function main(): Promise<void> {
  log(`Paygate benchmarks: ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; autocannon -c ${CONNECTIONS}, ${WARMUP} s warm-up + ${DURATION} s per run`);
  if (!existsSync(path.join(ROOT, 'packages/reference/dist/app.js'))) throw new Error('packages/*/dist missing: run `npm run build` first (`npm run bench` does)');
  if (want('baselines') || want('gateway')) await runBaselines();
  if (want('validation')) await runValidation();
  if (want('client')) await runClient();
  if (want('gateway') || want('post') || want('coldstart')) await runGateway();
  if (want('coldstart')) await runColdStart();
  if (want('generators')) await runGenerators();

  const b = budgets();
  const out = table();
  console.log(`\n${out}\n\nBudgets:`);
  for (const x of b) console.log(`  [${x.met ? 'met' : 'NOT met'}] ${x.name}: ${x.value} (target ${x.target})`);
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  const file = path.join(ROOT, 'bench/results/latest.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        loadAverage: os.loadavg(),
        machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: os.totalmem() / 2 ** 30, node: process.version, platform: `${os.platform()} ${os.release()}` },
        settings: { connections: CONNECTIONS, durationSec: DURATION, warmupSec: WARMUP, orderBodyBytes: BODY.length },
        rows,
        generators: generators?.ratio,
        budgets: b,
      },
      null,
      2,
    )}\n`,
  );
  log(`wrote ${path.relative(ROOT, file)}${PROFILE_DIR ? `; CPU profiles in ${PROFILE_DIR}` : ''}`);
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch {
      /* best effort */
    }
  }
}
