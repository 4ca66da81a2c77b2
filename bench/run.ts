/**
 * `npm run bench`: the performance suite. Every server under test runs in its own child process (the load generator,
 * autocannon, runs here and never shares its event loop); every figure is reported with the baseline measured in
 * the same run and the ratio to it. Writes bench/results/latest.json.
 *
 * Environment: BENCH_DURATION (s per measured run, default 5), BENCH_WARMUP (s, default 1), BENCH_CONNECTIONS
 * (default 50), BENCH_ONLY (comma list of sections: baselines,validation,client,gateway,post,prism,coldstart,startup,profile,generators,diff,lists,
 * cli,settlements,webhooks,webhook-isolation,contract,docs),
 * BENCH_ADMIN_URL (PostgreSQL admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_CPU_PROF=1 (servers run with --cpu-prof; profiles go to a temp dir printed at the end), BENCH_CLIENT_ROUNDS (client
 * section: alternated rounds of fetch and client, default 9), BENCH_PAIR_WARMUP (s of unmeasured load on each server of
 * a pair before its rounds against bare Express, default 5),
 * BENCH_WRITE_DOCS=0 (do not rewrite docs/benchmarks.md; on by default for a full run; =1 writes it for BENCH_ONLY too).
 *
 * The gateway is the real `paygate serve` (bench/lib/gateway.ts), Prism (`@stoplight/prism-cli`) mocks the same spec
 * as the peer a user would otherwise pick, and a short CPU profile of the gateway closes the run: docs/benchmarks.md
 * is written from this one run (bench/lib/report.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPaygateClient } from '@paygate/client';
import {
  describeRatio,
  describeRegeneration,
  GENERATION_GOALS,
  generationGoalMet,
  measureGenerators,
  type GeneratorBench,
} from './generate.js';
import { runCliBench } from './sections/cli.js';
import { createHostedOrderBody, createMerchantBody, orderEnvelope } from './lib/fixtures.js';
import { load, rssMiB, type LoadResult } from './lib/load.js';
import { PG_LOOP_DESCRIPTION, pgCreateOrderLoop, type PgLoopResult } from './lib/post-baseline.js';
import { freePort, httpOk, spawnNode, waitUntil, type Child } from './lib/proc.js';
import { gatewayCommand, gatewayEnv as gatewayEnvFor } from './lib/gateway.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './lib/profile.js';
import { writeBenchmarksDoc, type Budget } from './lib/report.js';
import { diffBudgets, diffTableRow, runDiffSection } from './sections/diff.js';
import { runStartup, startupBudgets } from './sections/startup.js';
import { docsBudgets, runDocsSection } from './sections/docs.js';
import { readdirSync, readFileSync } from 'node:fs';
import { defaultPoolSize } from '../packages/reference/src/core/config.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../packages/reference/src/testing/test-db.js';
import { runSettlementsSection } from './sections/settlements.js';
import { runWebhookIsolationSection, runWebhooksSection } from './sections/webhooks.js';
import { runContractSection } from './sections/contract.js';
import { listsBudgets, runLists } from './sections/lists.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env['BENCH_DURATION'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 1);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const ONLY = process.env['BENCH_ONLY']?.split(',').map((s) => s.trim()) ?? null;
const ADMIN_URL = process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PROFILE_DIR = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-prof-')) : null;
/** The gateway's default PostgreSQL pool on this machine (PAYGATE_DB_POOL_SIZE unset), used by the pg-alone loop too. */
const POOL_SIZE = defaultPoolSize(os.availableParallelism());
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const BODY = JSON.stringify(orderEnvelope());

const started = performance.now();
const loadAtStart = os.loadavg();
const WRITE_DOCS = process.env['BENCH_WRITE_DOCS'] === '1' || (process.env['BENCH_WRITE_DOCS'] !== '0' && ONLY === null);
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
const want = (section: string) => ONLY === null || ONLY.includes(section);

// ---------------------------------------------------------------------------------------------------------------
// helpers

const cleanups: (() => Promise<void> | void)[] = [];

async function startServer(
  name: string,
  args: string[] | ((port: number) => string[]),
  env: Record<string, string | undefined> = {},
  probePath = '/pg/orders/OD1000000000000001',
  headers: Record<string, string> = {},
  profileDir: string | null = PROFILE_DIR,
): Promise<Child> {
  const port = await freePort();
  const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawnNode({
    args: [...prof, ...(typeof args === 'function' ? args(port) : args)],
    cwd: ROOT,
    port,
    env: { BENCH_BODY: BODY, ...env },
  });
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
/** Goals of the sections in bench/sections/ (each reports its own). */
const sectionBudgets: Budget[] = [];

function loadRow(
  section: string,
  name: string,
  r: LoadResult,
  baseline?: { name: string; rps: number; rpsPerCpu?: number | undefined },
  note?: string,
): Row {
  const row: Row = {
    section,
    name,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    rssPeakMiB: r.rssPeakMiB,
    failures: r.failures,
    serverCpu: r.serverCpu,
    machineCpu: r.machineCpu,
  };
  if (r.serverCpu) row['rpsPerCpu'] = r.rps / r.serverCpu;
  if (baseline) {
    row.baseline = baseline.name;
    row.ratio = r.rps / baseline.rps;
    if (r.serverCpu && baseline.rpsPerCpu) row['cpuRatio'] = r.rps / r.serverCpu / baseline.rpsPerCpu;
  }
  if (note) row.note = note;
  if (r.failures > 0) log(`  WARNING: ${r.failures} of ${r.total} requests failed (non-2xx, errors or timeouts)`);
  log(
    `  ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.rssPeakMiB ? `, RSS peak ${r.rssPeakMiB.toFixed(0)} MiB` : ''}, CPU server ${r.serverCpu?.toFixed(2) ?? '?'} / machine ${r.machineCpu.toFixed(2)} cores${row.ratio !== undefined ? `, ${(row.ratio * 100).toFixed(0)}% of ${baseline!.name}` : ''}${row['cpuRatio'] !== undefined ? ` (${((row['cpuRatio'] as number) * 100).toFixed(0)}% per server CPU-second)` : ''}`,
  );
  rows.push(row);
  return row;
}

async function loadServer(child: Child, path: string | readonly string[], headers: Record<string, string> = {}) {
  const paths = typeof path === 'string' ? undefined : path;
  const url = `${child.url}${typeof path === 'string' ? path : path[0]!}`;
  return load({
    url,
    ...(paths ? { paths } : {}),
    headers,
    connections: CONNECTIONS,
    durationSec: DURATION,
    warmupSec: WARMUP,
    pid: child.pid,
  });
}

/** Requests per second of server CPU: throughput at one saturated core, robust to other load on the machine. */
const perCpu = (r: LoadResult) => (r.serverCpu ? r.rps / r.serverCpu : undefined);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
/** Seconds of load on each server of a pair before its rounds (BENCH_PAIR_WARMUP, default 5; D179). */
const PAIR_WARMUP = Number(process.env['BENCH_PAIR_WARMUP'] ?? 5);
const BARE_PATH = '/pg/orders/OD1000000000000001';
/**
 * Orders the GET order rows spread their load over (BENCH_GET_ORDERS, default 50): real traffic reads many orders, and
 * on PostgreSQL identical reads in one event-loop turn are read once (D178 PostgreSQL read batching), which one order read by every connection
 * would turn into a benchmark artifact.
 */
const GET_ORDERS = Math.max(1, Number(process.env['BENCH_GET_ORDERS'] ?? 50));
const orderPaths = (ids: readonly string[]) => ids.map((id) => `/pg/orders/${id}`);

/**
 * A server against bare Express in alternating rounds (bare, target, bare, target, ...). The machine is a shared VM:
 * with one baseline at the start of the run, two runs of the same code put GET order on PostgreSQL at 20% and at 43% of
 * bare Express, because bare Express itself cost 87 to 211 µs of CPU per request from one run to the next. Each round
 * gives its own ratio (per server CPU-second); the row is the round with the median ratio, its peak RSS the highest
 * of all rounds, and every round's ratio is kept in the row (`rounds`).
 */
async function againstBare(
  bare: Child,
  target: Child,
  targetPath: string | readonly string[],
  headers: Record<string, string>,
): Promise<{ result: LoadResult; bare: LoadResult; rounds: number[] }> {
  const targetPaths = typeof targetPath === 'string' ? undefined : targetPath;
  const targetUrl = `${target.url}${typeof targetPath === 'string' ? targetPath : targetPath[0]!}`;
  // Both servers loaded before the first round (not measured): a server started a moment ago compiles its hot code
  // and loads its lazy modules (the response serializer's compiler, D142) during the first run's 1 s warm-up on a
  // loaded machine, which put round 1 of GET order on PostgreSQL at 29% against 71% and 84% after it (D179 benchmark pairs warmed up first).
  if (PAIR_WARMUP > 0) {
    await load({ url: `${bare.url}${BARE_PATH}`, connections: CONNECTIONS, durationSec: PAIR_WARMUP, warmupSec: 0 });
    await load({
      url: targetUrl,
      ...(targetPaths ? { paths: targetPaths } : {}),
      headers,
      connections: CONNECTIONS,
      durationSec: PAIR_WARMUP,
      warmupSec: 0,
    });
  }
  const pairs: { result: LoadResult; bare: LoadResult; ratio: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const b = await loadServer(bare, BARE_PATH);
    const t = await loadServer(target, targetPath, headers);
    const bCpu = perCpu(b);
    const tCpu = perCpu(t);
    pairs.push({ result: t, bare: b, ratio: bCpu && tCpu ? tCpu / bCpu : t.rps / b.rps });
  }
  const sorted = [...pairs].sort((x, y) => x.ratio - y.ratio);
  const mid = sorted[(sorted.length - 1) >> 1]!;
  const peaks = pairs.map((p) => p.result.rssPeakMiB).filter((x): x is number => typeof x === 'number');
  return {
    result: { ...mid.result, rssPeakMiB: peaks.length > 0 ? Math.max(...peaks) : mid.result.rssPeakMiB },
    bare: mid.bare,
    rounds: pairs.map((p) => p.ratio),
  };
}

const logRounds = (rounds: number[]) =>
  log(
    `    per-CPU ratio to bare Express in each round: ${rounds.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')} (the median is reported)`,
  );

const bareBaseline = (b: LoadResult) => ({ name: 'bare Express', rps: b.rps, rpsPerCpu: perCpu(b) });

async function api(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: {
      'X-Client-ID': PARTNER.id,
      'X-Client-Secret': PARTNER.secret,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...extra,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An approved merchant and one hosted order, through the API (partner credentials). */
async function seed(base: string, orders = 1): Promise<{ merchantId: string; orderId: string; orderIds: string[] }> {
  const merchant = await api(base, 'POST', '/partners/merchants/', createMerchantBody());
  const merchantId = String((merchant['data'] as Record<string, unknown>)['id']);
  await api(base, 'POST', `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const orderIds: string[] = [];
  for (let i = 0; i < orders; i++) {
    const order = await api(
      base,
      'POST',
      '/pg/orders/',
      { ...createHostedOrderBody(), reference_id: `bench-seed-${Date.now()}-${i}` },
      { 'X-Merchant-ID': merchantId },
    );
    orderIds.push(String((order['data'] as Record<string, unknown>)['order_id']));
  }
  return { merchantId, orderId: orderIds[0]!, orderIds };
}

const partnerHeaders = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
const gatewayEnv = (db: { dataDir?: string; databaseUrl?: string }) =>
  gatewayEnvFor({
    partner: PARTNER,
    dataDir: db.dataDir ?? path.join(os.tmpdir(), 'paygate-bench-unused'),
    databaseUrl: db.databaseUrl,
    logLevel: process.env['LOG_LEVEL'] ?? 'info',
  });
const GATEWAY = gatewayCommand(ROOT);

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
    loadRow(
      'baselines',
      label,
      r,
      key === 'http' && baselines.express
        ? { name: 'bare Express', rps: baselines.express.rps, rpsPerCpu: perCpu(baselines.express) }
        : undefined,
    );
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
    const row = loadRow(
      'validation',
      label,
      r,
      plain && mode !== 'plain' ? { name: 'plain route', rps: plain.rps, rpsPerCpu: perCpu(plain) } : undefined,
    );
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
  const seqN = 1000;
  const concN = 4000;
  const concurrency = CONNECTIONS;
  // Each run also measures this process's CPU (user + system): the client side of a call is all that runs here (the
  // server is a child process), so calls per client CPU-second hold steady when other processes take the cores.
  interface ClientRun {
    rps: number;
    cpuPerCall: number;
  }
  const timed = async (calls: number, run: () => Promise<void>): Promise<ClientRun> => {
    const cpu = process.cpuUsage();
    const t = performance.now();
    await run();
    const used = process.cpuUsage(cpu);
    return { rps: calls / ((performance.now() - t) / 1000), cpuPerCall: (used.user + used.system) / 1e6 / calls };
  };
  // D176: the sequential calls are measured in short runs (SEQ_CHUNK calls), fetch and client back to back, many
  // times: a pair then spans a fraction of a second, so the drift of this shared machine (which moved the 1000-call
  // runs' ratio between -10% and 43%) falls on both sides of a pair alike, and the median of many pairs is the figure.
  const SEQ_CHUNK = 100;
  const sequential = (fn: () => Promise<void>) =>
    timed(SEQ_CHUNK, async () => {
      for (let i = 0; i < SEQ_CHUNK; i++) await fn();
    });
  const concurrent = (fn: () => Promise<void>) => {
    let next = 0;
    return timed(concN, async () => {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < concN) await fn();
        }),
      );
    });
  };
  // warm-up both paths, then alternate (BENCH_CLIENT_ROUNDS, default 9) and keep each path's median: one disturbed
  // run (other processes share the machine) moves neither side. Which side goes first alternates too, so a load
  // that rises or falls during a round favours neither.
  for (let i = 0; i < seqN / SEQ_CHUNK; i++) {
    await sequential(viaFetch);
    await sequential(viaClient);
  }
  await concurrent(viaFetch);
  await concurrent(viaClient);
  const runs = { fetchSeq: [] as ClientRun[], clientSeq: [] as ClientRun[], fetchConc: [] as ClientRun[], clientConc: [] as ClientRun[] };
  const rounds = Number(process.env['BENCH_CLIENT_ROUNDS'] ?? 9);
  const pair = async (
    measure: (fn: () => Promise<void>) => Promise<ClientRun>,
    fetchRuns: ClientRun[],
    clientRuns: ClientRun[],
    clientFirst: boolean,
  ) => {
    if (clientFirst) clientRuns.push(await measure(viaClient));
    fetchRuns.push(await measure(viaFetch));
    if (!clientFirst) clientRuns.push(await measure(viaClient));
  };
  for (let i = 0; i < rounds; i++) {
    // as many sequential pairs per round as it takes to make seqN calls per side
    for (let j = 0; j < seqN / SEQ_CHUNK; j++) await pair(sequential, runs.fetchSeq, runs.clientSeq, (i + j) % 2 === 1);
    await pair(concurrent, runs.fetchConc, runs.clientConc, i % 2 === 1);
  }
  const med = (xs: ClientRun[]): ClientRun => ({ rps: median(xs.map((x) => x.rps)), cpuPerCall: median(xs.map((x) => x.cpuPerCall)) });
  await child.stop();
  for (const [name, fs, cs] of [
    [`sequential (${seqN} calls per round in runs of ${SEQ_CHUNK})`, runs.fetchSeq, runs.clientSeq],
    [`concurrent (${concN} calls, ${concurrency} in flight)`, runs.fetchConc, runs.clientConc],
  ] as const) {
    const f = med(fs);
    const c = med(cs);
    // The ratios are the medians of each round's own ratio (fetch and client measured back to back), not a ratio of
    // medians taken at different moments: on this shared machine the CPU a call costs drifts between rounds.
    // cpuRatio: calls per client CPU-second, client / raw fetch (what the goal uses, as for the servers)
    const cpuRatios = fs.map((x, i) => x.cpuPerCall / cs[i]!.cpuPerCall);
    const cpuRatio = median(cpuRatios);
    const ratio = median(fs.map((x, i) => cs[i]!.rps / x.rps));
    rows.push({ section: 'client', name: `raw fetch, ${name}`, rps: f.rps, cpuPerCallUs: f.cpuPerCall * 1e6 });
    rows.push({
      section: 'client',
      name: `generated client, ${name}`,
      rps: c.rps,
      cpuPerCallUs: c.cpuPerCall * 1e6,
      baseline: 'raw fetch',
      ratio,
      cpuRatio,
      overhead: 1 - cpuRatio,
      rounds: cpuRatios,
    });
    log(
      `  ${name}: fetch ${f.rps.toFixed(0)} calls/s (${(f.cpuPerCall * 1e6).toFixed(0)} µs CPU/call), client ${c.rps.toFixed(0)} calls/s (${(c.cpuPerCall * 1e6).toFixed(0)} µs CPU/call);` +
        ` overhead ${((1 - cpuRatio) * 100).toFixed(1)}% per CPU-s (rounds: ${cpuRatios.map((x) => `${((1 - x) * 100).toFixed(0)}%`).join(', ')}; raw calls/s: ${((1 - ratio) * 100).toFixed(1)}%)`,
    );
  }
}

type Database = ThrowawayDatabase;

async function createDatabase(): Promise<Database> {
  const db = await createThrowawayDatabase(ADMIN_URL, 'paygate_bench');
  cleanups.push(() => db.drop());
  return db;
}

const gateway: {
  pgliteDir?: string;
  pgliteOrder?: string;
  pgliteOrders?: string[];
  db?: Database;
  pgOrder?: string;
  pgOrders?: string[];
  merchantId?: string;
} = {};

async function runGateway(): Promise<void> {
  log(
    `2. GET /pg/orders/{order_id} on the reference gateway (auth + rate limit + validation + 1 read) spread over ${GET_ORDERS} orders, NODE_ENV=production; ${ROUNDS} rounds alternating with bare Express`,
  );
  const bare = await startServer('gateway-paired-bare-express', ['bench/servers/bare-express.mjs']);
  // PGlite (a data dir that persists for the cold-start section)
  gateway.pgliteDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-pglite-'));
  cleanups.push(() => rmSync(gateway.pgliteDir!, { recursive: true, force: true }));
  {
    const child = await startServer('gateway-pglite', GATEWAY, gatewayEnv({ dataDir: gateway.pgliteDir }), '/healthz');
    const { orderId, orderIds } = await seed(child.url, GET_ORDERS);
    gateway.pgliteOrder = orderId;
    gateway.pgliteOrders = orderIds;
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(child.pid);
    const p = await againstBare(bare, child, orderPaths(orderIds), partnerHeaders);
    await child.stop();
    const row = loadRow('gateway', 'GET order, PGlite', p.result, bareBaseline(p.bare));
    row['rssIdleMiB'] = idle;
    row['rounds'] = p.rounds;
    logRounds(p.rounds);
    log(`  PGlite gateway idle RSS (seeded, before load): ${idle?.toFixed(0) ?? '?'} MiB`);
  }
  // PostgreSQL
  gateway.db = await createDatabase();
  {
    const child = await startServer('gateway-postgres', GATEWAY, gatewayEnv({ databaseUrl: gateway.db.url }), '/healthz');
    const { orderId, orderIds, merchantId } = await seed(child.url, GET_ORDERS);
    gateway.pgOrder = orderId;
    gateway.pgOrders = orderIds;
    gateway.merchantId = merchantId;
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(child.pid);
    const p = await againstBare(bare, child, orderPaths(orderIds), partnerHeaders);
    const row = loadRow('gateway', 'GET order, PostgreSQL', p.result, bareBaseline(p.bare));
    row['rssIdleMiB'] = idle;
    row['rounds'] = p.rounds;
    logRounds(p.rounds);
    if (want('post')) await runPost(child);
    await child.stop();
  }
  await bare.stop();
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
    setupRequest: (req) => ({
      ...req,
      method: 'POST',
      path: '/pg/orders/',
      headers,
      body: JSON.stringify({ ...template, reference_id: `bench-${run}-${n++}` }),
    }),
    connections: CONNECTIONS,
    durationSec: DURATION,
    warmupSec: WARMUP,
    pid: child.pid,
  });
  const loop = await pgAlone(gateway.db!.url, gateway.merchantId!);
  rows.push({
    section: 'post',
    name: `pg alone: ${PG_LOOP_DESCRIPTION}, ${CONNECTIONS} workers, pool ${POOL_SIZE}`,
    rps: loop.rps,
    p50: loop.p50,
    p99: loop.p99,
  });
  log(`  pg alone: ${loop.rps.toFixed(0)} tx/s, p50 ${loop.p50.toFixed(1)} ms, p99 ${loop.p99.toFixed(1)} ms`);
  loadRow('post', 'POST order (hosted), PostgreSQL', r, { name: 'pg alone', rps: loop.rps });
}

/**
 * The gateway's statements for one hosted order straight through `pg` (bench/lib/post-baseline.ts: the same statement
 * text and parameters, prepared, with the gateway's default pool size; D174).
 */
async function pgAlone(url: string, merchantId: string): Promise<PgLoopResult> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const partnerId = (await admin.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [merchantId])).rows[0]!
    .partner_id;
  await admin.end();
  const loop = pgCreateOrderLoop({ url, merchantId, partnerId, workers: CONNECTIONS, poolSize: POOL_SIZE });
  try {
    await loop.drive(WARMUP);
    return await loop.drive(DURATION);
  } finally {
    await loop.end();
  }
}

async function runColdStart(): Promise<void> {
  log('6. Cold start: spawn -> first 200 (polled every 5 ms), median of 3');
  const measure = async (args: string[], env: Record<string, string | undefined>, probe: string, headers: Record<string, string> = {}) => {
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
  const bareMs = await measure(['bench/servers/bare-express.mjs'], {}, '/pg/orders/OD1000000000000001');
  rows.push({ section: 'coldstart', name: 'bare Express 5', ms: bareMs });
  log(`  bare Express: ${bareMs.toFixed(0)} ms`);
  const targets: [string, Record<string, string | undefined>, string | undefined][] = [];
  if (gateway.pgliteDir && gateway.pgliteOrder)
    targets.push(['paygate serve, existing PGlite data dir', gatewayEnv({ dataDir: gateway.pgliteDir }), gateway.pgliteOrder]);
  if (gateway.db && gateway.pgOrder)
    targets.push(['paygate serve, PostgreSQL (migrated)', gatewayEnv({ databaseUrl: gateway.db.url }), gateway.pgOrder]);
  // Each target in production mode as spawnNode runs it (no response validation: express-openapi-validator is not
  // loaded at all), and with NODE_ENV=development (responses validated by express-openapi-validator).
  const variants: [string, Record<string, string | undefined>][] = [
    ['precompiled', {}],
    ['precompiled, NODE_ENV=development', { NODE_ENV: 'development' }],
  ];
  for (const [target, env, orderId] of targets) {
    for (const [variant, extra] of variants) {
      const name = `${target} (${variant})`;
      const ms = await measure(GATEWAY, { ...env, ...extra, LOG_LEVEL: 'warn' }, `/pg/orders/${orderId}`, partnerHeaders);
      rows.push({ section: 'coldstart', name, ms, baseline: 'bare Express', ratio: ms / bareMs });
      log(`  ${name}: ${ms.toFixed(0)} ms (${(ms / bareMs).toFixed(1)}x bare Express)`);
    }
  }
}

/** Prism's CLI (`prism mock`), the mock server a user of an OpenAPI spec would otherwise reach for. */
const PRISM_CLI = 'node_modules/@stoplight/prism-cli/dist/index.js';

async function runPrism(): Promise<void> {
  log('8. Prism mock (@stoplight/prism-cli) on openapi/openapi.yaml: the same GET order (example response, security checked)');
  if (!existsSync(path.join(ROOT, PRISM_CLI))) {
    log(`  skipped: ${PRISM_CLI} missing (npm install puts @stoplight/prism-cli there as a devDependency)`);
    return;
  }
  const child = await startServer(
    'prism',
    (port) => [PRISM_CLI, 'mock', 'openapi/openapi.yaml', '-h', '127.0.0.1', '-p', String(port)],
    {},
    '/pg/orders/OD1000000000000001',
    partnerHeaders,
  );
  const bare = await startServer('prism-paired-bare-express', ['bench/servers/bare-express.mjs']);
  const p = await againstBare(bare, child, '/pg/orders/OD1000000000000001', partnerHeaders);
  await child.stop();
  await bare.stop();
  const row = loadRow('prism', 'Prism mock, GET order', p.result, bareBaseline(p.bare));
  row['rounds'] = p.rounds;
  logRounds(p.rounds);
}

const profiles: { target: string; summary: ProfileSummary }[] = [];

/** The profiles behind the figures: `paygate serve` on PostgreSQL and on PGlite under the same GET load, --cpu-prof. */
async function runProfile(): Promise<void> {
  const targets: [string, Record<string, string | undefined>, string[] | undefined][] = [
    ['PostgreSQL', gateway.db ? gatewayEnv({ databaseUrl: gateway.db.url }) : {}, gateway.db ? gateway.pgOrders : undefined],
    ['PGlite', gateway.pgliteDir ? gatewayEnv({ dataDir: gateway.pgliteDir }) : {}, gateway.pgliteDir ? gateway.pgliteOrders : undefined],
  ];
  for (const [target, env, orderIds] of targets) {
    if (!orderIds || orderIds.length === 0) continue;
    log(`9. CPU profile: paygate serve on ${target} under the GET order load (--cpu-prof, 3 s)`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-prof-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const child = await startServer(`profile-gateway-${target.toLowerCase()}`, GATEWAY, env, '/healthz', {}, dir);
    await load({
      url: `${child.url}/pg/orders/${orderIds[0]!}`,
      paths: orderPaths(orderIds),
      headers: partnerHeaders,
      connections: CONNECTIONS,
      durationSec: 3,
      warmupSec: 1,
    });
    await child.stop();
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) {
      log('  no profile written (the gateway did not exit cleanly)');
      continue;
    }
    const raw = readFileSync(path.join(dir, file), 'utf8');
    mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(path.join(ROOT, `bench/results/gateway-get-${target.toLowerCase()}.cpuprofile`), raw); // for bench/profile-summary.ts and devtools
    const summary = summarizeProfile(JSON.parse(raw) as CpuProfile, 12);
    profiles.push({ target, summary });
    for (const p of summary.byPackage.slice(0, 6)) log(`  ${(p.share * 100).toFixed(1).padStart(5)}%  ${p.name}`);
  }
}

let generators: GeneratorBench | undefined;
async function runGenerators(): Promise<void> {
  log('7. Generators (bench/generate.ts, each run in a fresh process)');
  generators = await measureGenerators((l) => log(`  ${l}`));
  for (const { label, measurement: m, tsc } of generators.rows) {
    rows.push({
      section: 'generators',
      name: label,
      ms: m.ms,
      cpuMs: m.cpuMs,
      maxRssMiB: m.maxRssMiB,
      peakHeapMiB: m.peakHeapMiB,
      tscMB: tsc?.maxRssMB,
      note: m.detail,
    });
  }
  for (const g of generators.ratios) log(`  ${g.spec}, ours / openapi-typescript: ${describeRatio(g)}`);
  for (const r of generators.regenerations) log(`  ${describeRegeneration(r)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// budgets, table, json

/** The goals of issue 12, each as a ratio from this run (per server CPU-second where measured, raw req/s beside). */
function budgets(): Budget[] {
  const find = (section: string, prefix: string) => rows.find((r) => r.section === section && r.name.startsWith(prefix));
  const out: Budget[] = [];
  const eff = (r: Row) => (typeof r['cpuRatio'] === 'number' ? (r['cpuRatio'] as number) : r.ratio!);
  const both = (r: Row, f: (x: number) => number) => `${pct(f(eff(r)))} per CPU-s (raw req/s: ${pct(f(r.ratio!))})`;
  const getPg = find('gateway', 'GET order, PostgreSQL');
  const getPglite = find('gateway', 'GET order, PGlite');
  const prism = find('prism', 'Prism');
  if (getPg?.ratio !== undefined)
    out.push({ name: 'GET order on PostgreSQL vs bare Express', target: '>= 60%', value: both(getPg, (x) => x), met: eff(getPg) >= 0.6 });
  if (getPg?.ratio !== undefined && prism?.ratio !== undefined) {
    // Both were measured against bare Express in alternating rounds: the ratio of the two ratios cancels the drift of
    // the machine between the gateway section and Prism's.
    const raw = getPg.ratio / prism.ratio;
    const perCpuRatio = eff(getPg) / eff(prism);
    out.push({
      name: 'GET order on PostgreSQL vs Prism mock',
      target: '>= 3x',
      value: `${perCpuRatio.toFixed(2)}x per CPU-s (raw req/s: ${raw.toFixed(2)}x)`,
      met: perCpuRatio >= 3,
    });
  }
  if (getPglite?.ratio !== undefined)
    out.push({
      name: 'GET order on PGlite vs bare Express',
      target: '>= 35%',
      value: both(getPglite, (x) => x),
      met: eff(getPglite) >= 0.35,
    });
  if (getPglite?.rssPeakMiB) {
    const mb = (getPglite.rssPeakMiB * 1024 * 1024) / 1e6;
    const idle =
      typeof getPglite['rssIdleMiB'] === 'number'
        ? ` (idle ${(((getPglite['rssIdleMiB'] as number) * 1024 * 1024) / 1e6).toFixed(0)} MB)`
        : '';
    out.push({ name: 'PGlite gateway RSS under load', target: '< 200 MB', value: `${mb.toFixed(0)} MB peak${idle}`, met: mb < 200 });
  }
  const post = find('post', 'POST order');
  if (post?.ratio !== undefined)
    out.push({
      name: 'POST order (hosted) on PostgreSQL vs its statements through pg alone',
      target: '>= 75%',
      value: pct(post.ratio),
      met: post.ratio >= 0.75,
    });
  // the goal is request validation (what production runs); response validation (development only) is in the table
  const requestValidation = find('validation', 'createApp: request validation');
  if (requestValidation?.ratio !== undefined) {
    out.push({
      name: 'Request validation overhead (precompiled validators)',
      target: '<= 10%',
      value: both(requestValidation, (x) => 1 - x),
      met: 1 - eff(requestValidation) <= 0.1,
    });
  }
  for (const r of rows.filter((x) => x.section === 'client' && x.name.startsWith('generated'))) {
    out.push({
      name: `Client overhead, ${r.name.replace('generated client, ', '')}`,
      target: '<= 5%',
      value: both(r, (x) => 1 - x),
      met: 1 - eff(r) <= 0.05,
      // D176: every round's overhead, so a figure that noise moves shows how far
      ...(Array.isArray(r['rounds']) ? { rounds: (r['rounds'] as number[]).map((x) => 1 - x) } : {}),
    });
  }
  const cold = rows.find((r) => r.section === 'coldstart' && r.name === 'paygate serve, existing PGlite data dir (precompiled)');
  if (cold)
    out.push({
      name: 'Cold start, existing PGlite data dir (production)',
      target: '< 0.8 s',
      value: `${((cold['ms'] as number) / 1000).toFixed(2)} s`,
      met: (cold['ms'] as number) < 800,
    });
  // Issue 23: PostgreSQL (migrated) under 0.5 s.
  const coldPg = rows.find((r) => r.section === 'coldstart' && r.name === 'paygate serve, PostgreSQL (migrated) (precompiled)');
  if (coldPg)
    out.push({
      name: 'Cold start, migrated PostgreSQL (production)',
      target: '< 0.5 s',
      value: `${((coldPg['ms'] as number) / 1000).toFixed(2)} s`,
      met: (coldPg['ms'] as number) < 500,
    });
  out.push(...diffBudgets(rows), ...startupBudgets(rows as { section: string; name: string; ms?: number }[]));
  out.push(...docsBudgets(rows as { section: string; name: string; ms?: number }[]));
  out.push(...listsBudgets());
  // Issue 23: generation of GitHub and Stripe against openapi-typescript on the same file (bench/generate.ts).
  for (const g of generators?.ratios.filter((x) => x.goal) ?? []) {
    out.push({
      name: `Generation, ${g.spec}: CPU / output / strict tsc memory vs openapi-typescript`,
      target: `<= ${GENERATION_GOALS.cpu}x / ${GENERATION_GOALS.size}x / ${GENERATION_GOALS.tscMemory}x`,
      value: describeRatio(g),
      met: generationGoalMet(g),
    });
  }
  return [...out, ...sectionBudgets];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(): string {
  const lines: string[] = [];
  const head = ['Section', 'Run', 'req/s', 'p50 ms', 'p99 ms', 'RSS MiB', 'CPU srv/all', 'vs baseline'];
  const body = rows.map((r) => {
    const per = typeof r['cpuRatio'] === 'number' ? ` (${pct(r['cpuRatio'] as number)} per CPU-s)` : '';
    const ratio =
      r.ratio !== undefined
        ? `${r.section === 'coldstart' ? `${r.ratio.toFixed(1)}x` : r.section === 'startup' ? `${r.ratio.toFixed(2)}x` : pct(r.ratio)} of ${r.baseline}${per}`
        : '';
    if (['coldstart', 'startup'].includes(r.section))
      return [r.section, r.name, '', '', '', '', '', `${(r['ms'] as number).toFixed(0)} ms${ratio ? `, ${ratio}` : ''}`];
    if (r.section === 'docs')
      return [
        r.section,
        r.name,
        '',
        '',
        '',
        '',
        '',
        `${(r['ms'] as number).toFixed(0)} ms${r.ratio !== undefined ? `, ${r.ratio.toFixed(2)}x of ${r.baseline}` : ''}; ${r.note ?? ''}`,
      ];
    if (r.section === 'cli') return [r.section, r.name, '', '', '', '', '', r.note ?? ''];
    if (r.section === 'diff') return diffTableRow(r);
    if (r.section === 'generators')
      return [
        r.section,
        r.name,
        '',
        '',
        '',
        (r['maxRssMiB'] as number).toFixed(0),
        '',
        `${((r['cpuMs'] as number) / 1000).toFixed(2)} CPU-s, ${r.note ?? ''}${typeof r['tscMB'] === 'number' ? `, strict tsc ${(r['tscMB'] as number).toFixed(0)} MB` : ''}`,
      ];
    const cpu =
      typeof r['machineCpu'] === 'number'
        ? `${typeof r['serverCpu'] === 'number' ? (r['serverCpu'] as number).toFixed(2) : '-'}/${(r['machineCpu'] as number).toFixed(2)}`
        : '';
    return [
      r.section,
      r.name,
      r.rps?.toFixed(0) ?? '',
      r.p50?.toFixed(1) ?? '',
      r.p99?.toFixed(1) ?? '',
      r.rssPeakMiB ? r.rssPeakMiB.toFixed(0) : '',
      cpu,
      ratio,
    ];
  });
  if (generators) {
    for (const g of generators.ratios) {
      body.push(['generators', `${g.spec}: ours / openapi-typescript`, '', '', '', '', '', describeRatio(g)]);
    }
  }
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => `| ${r.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  lines.push(
    fmt(head),
    `|${widths.map((w, i) => (i >= 2 && i <= 6 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...body.map(fmt),
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  log(
    `Paygate benchmarks: ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; autocannon -c ${CONNECTIONS}, ${WARMUP} s warm-up + ${DURATION} s per run`,
  );
  if (!existsSync(path.join(ROOT, 'packages/reference/dist/app.js')))
    throw new Error('packages/*/dist missing: run `npm run build` first (`npm run bench` does)');
  if (want('baselines') || want('gateway')) await runBaselines();
  if (want('validation')) await runValidation();
  if (want('client')) await runClient();
  if (want('gateway') || want('post') || want('coldstart')) await runGateway();
  if (want('prism')) await runPrism();
  if (want('coldstart')) await runColdStart();
  if (want('startup')) rows.push(...(await runStartup({ root: ROOT, partner: PARTNER, log })));
  if (want('docs')) rows.push(...(await runDocsSection({ root: ROOT, log })));
  if (want('profile')) await runProfile();
  if (want('generators')) await runGenerators();
  if (want('diff')) rows.push(...(await runDiffSection(log)));
  if (want('lists')) {
    await runLists({
      log,
      createDatabase,
      partnerHeaders,
      loadRow,
      onboardMerchant: seed,
      startGateway: (name, databaseUrl) => startServer(name, GATEWAY, gatewayEnv({ databaseUrl }), '/healthz'),
    });
  }
  const cli = want('cli') ? await runCliBench(ROOT, log) : undefined;
  rows.push(...(cli?.rows ?? []));
  for (const [name, section] of [
    ['settlements', runSettlementsSection],
    ['webhooks', runWebhooksSection],
    ['webhook-isolation', runWebhookIsolationSection],
    ['contract', runContractSection],
  ] as const) {
    if (want(name))
      await section({ root: ROOT, adminUrl: ADMIN_URL, log }).then((r) => rows.push(...r.rows) + sectionBudgets.push(...r.budgets));
  }

  const b = [...budgets(), ...(cli?.budgets ?? [])];
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
        loadAverage: { start: loadAtStart, end: os.loadavg() },
        machine: {
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model,
          memoryGiB: os.totalmem() / 2 ** 30,
          node: process.version,
          platform: `${os.platform()} ${os.release()}`,
        },
        settings: { connections: CONNECTIONS, durationSec: DURATION, warmupSec: WARMUP, orderBodyBytes: BODY.length },
        rows,
        generators: generators?.ratios,
        budgets: b,
        profiles,
      },
      null,
      2,
    )}\n`,
  );
  log(`wrote ${path.relative(ROOT, file)}${PROFILE_DIR ? `; CPU profiles in ${PROFILE_DIR}` : ''}`);
  if (WRITE_DOCS) {
    const doc = path.join(ROOT, 'docs/benchmarks.md');
    writeBenchmarksDoc(doc, {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      command: ONLY ? `BENCH_ONLY=${ONLY.join(',')} npm run bench` : 'npm run bench',
      durationSeconds: (performance.now() - started) / 1000,
      loadAverage: { start: loadAtStart, end: os.loadavg() },
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        memoryGiB: os.totalmem() / 2 ** 30,
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
        postgres: await postgresVersion(),
      },
      settings: { connections: CONNECTIONS, durationSec: DURATION, warmupSec: WARMUP, orderBodyBytes: BODY.length },
      budgets: b,
      table: out,
      cpuPerRequest: rows
        .filter((r) => ['baselines', 'gateway', 'prism'].includes(r.section) && typeof r['rpsPerCpu'] === 'number')
        .map((r) => ({ name: r.name, micros: 1e6 / (r['rpsPerCpu'] as number) })),
      profiles,
      generators: generators?.ratios,
      regenerations: generators?.regenerations,
    });
    log(`wrote ${path.relative(ROOT, doc)} (BENCH_WRITE_DOCS=0 to leave it; a BENCH_ONLY run writes it only with BENCH_WRITE_DOCS=1)`);
  }
}

async function postgresVersion(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
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
