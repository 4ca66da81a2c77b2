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
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
import { gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { load } from '../lib/load.js';
import { pgCreateOrderLoop } from '../lib/post-baseline.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import { defaultPoolSize } from '../../packages/reference/src/core/config.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';

/** User and kernel CPU seconds of one process (all its threads), from /proc. */
function userSystemSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const CONNECTIONS = 50;
const POOL_SIZE = defaultPoolSize(os.availableParallelism());
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const headers = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
const withKey = process.env['BENCH_IDEMPOTENCY'] === '1';

async function api(base: string, p: string, body: unknown, extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${p}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', ...extra },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`POST ${p} -> ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-post-cpu-'));
const db = await createThrowawayDatabase(process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'paygate_postcpu');
const profDir = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-post-prof-')) : undefined;
const port = await freePort();
console.log(`starting paygate serve on PostgreSQL (port ${port}), pool ${POOL_SIZE}${profDir ? ', with --cpu-prof' : ''}${withKey ? ', Idempotency-Key on every POST' : ''}`);
const child = spawnNode({
  args: [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), ...gatewayCommand(ROOT)],
  cwd: ROOT,
  port,
  env: gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: process.env['LOG_LEVEL'] ?? 'info' }),
});
try {
  await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 180_000, 20);
  const merchant = await api(child.url, '/partners/merchants/', createMerchantBody());
  const merchantId = String(merchant['id']);
  await api(child.url, `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const template = createHostedOrderBody();
  const postHeaders: Record<string, string> = { ...headers, 'Content-Type': 'application/json', 'X-Merchant-ID': merchantId };
  const run = Date.now();
  let n = 0;
  const gatewayLoad = (durationSec: number, warmupSec: number) =>
    load({
      url: `${child.url}/pg/orders/`,
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
      pid: child.pid,
    });
  const loop = pgCreateOrderLoop({ url: db.url, merchantId, workers: CONNECTIONS, poolSize: POOL_SIZE });
  const ratios: number[] = [];
  try {
    const warmup = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 5);
    if (warmup > 0) {
      await gatewayLoad(warmup, 0);
      await loop.drive(warmup);
    }
    for (let round = 1; round <= rounds; round++) {
      const measureGateway = async () => {
        const before = userSystemSeconds(child.pid);
        const r = await gatewayLoad(seconds, 1);
        const after = userSystemSeconds(child.pid);
        return { r, user: after.user - before.user, system: after.system - before.system };
      };
      const measurePg = async () => {
        await loop.drive(1);
        return loop.drive(seconds);
      };
      let g: Awaited<ReturnType<typeof measureGateway>>;
      let p: Awaited<ReturnType<typeof measurePg>>;
      if (round % 2 === 1) {
        g = await measureGateway();
        p = await measurePg();
      } else {
        p = await measurePg();
        g = await measureGateway();
      }
      const served = g.r.rps * seconds;
      const us = (s: number) => `${((s / served) * 1e6).toFixed(0)} µs`;
      const ratio = g.r.rps / p.rps;
      ratios.push(ratio);
      console.log(
        `round ${round}: gateway ${g.r.rps.toFixed(0)} orders/s (${g.r.failures} failures), ${(((g.r.serverCpu ?? NaN) / g.r.rps) * 1e6).toFixed(0)} µs CPU per order` +
          ` (user ${us(g.user)}, kernel ${us(g.system)}), p50 ${g.r.p50} ms, machine ${g.r.machineCpu.toFixed(2)} cores;` +
          ` pg alone ${p.rps.toFixed(0)} tx/s (client ${(p.cpuPerTx * 1e6).toFixed(0)} µs CPU/tx), p50 ${p.p50.toFixed(1)} ms: ${(ratio * 100).toFixed(1)}% of pg alone`,
      );
    }
  } finally {
    await loop.end();
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `POST order: median ${((sorted[Math.floor(sorted.length / 2)] ?? NaN) * 100).toFixed(1)}% of pg alone (rounds ${ratios.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')})`,
  );
} finally {
  await child.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
  if (profDir) console.log(`profile: ${path.join(profDir, readdirSync(profDir)[0] ?? '(none written)')}`);
}
