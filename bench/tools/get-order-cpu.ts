/**
 * Server CPU per GET /pg/orders/{order_id} of `paygate serve` on one database, without the rest of the suite: the
 * loop to use while removing per-request cost (the full suite, `npm run bench`, takes minutes). `npm run build` first.
 *
 * Each round loads the gateway, then bare Express (bench/servers/bare-express.mjs, answering the same body) for the
 * same time, and prints the ratio of their CPU per request: the number `npm run bench` judges, from one run, so the
 * drift of a shared machine cancels (the median of the rounds is the figure).
 *
 * Usage: npx tsx bench/tools/get-order-cpu.ts [postgres|pglite] [seconds, default 5] [rounds, default 3]
 *   BENCH_WARMUP_SECONDS  load on both servers before the rounds (default 8)
 *   BENCH_CPU_PROF=1   also writes a --cpu-prof profile (path printed; summarise it with bench/profile-summary.ts)
 *   BENCH_STRACE=1     counts the server's system calls per request during the load (strace -c -f)
 *   BENCH_PERF=<file>  records round 1 with `perf record -g` (on-CPU samples, user and kernel, unlike --cpu-prof's
 *                      wall clock; the server runs with --perf-basic-prof so JavaScript frames have names); read it
 *                      with `perf report -i <file> --no-children --sort dso,sym`
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
import { BENCH_PARTNER, BENCH_PARTNER_HEADERS, benchPost, gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { load, rssMiB } from '../lib/load.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';

/** User and kernel CPU seconds of one process (all its threads), from /proc. */
function userSystemSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const target = process.argv[2] ?? 'postgres';
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 3);
const PARTNER = BENCH_PARTNER;
const headers = BENCH_PARTNER_HEADERS;
if (target !== 'postgres' && target !== 'pglite') throw new Error(`unknown target ${target}: use postgres or pglite`);

const api = benchPost;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-get-cpu-'));
const db =
  target === 'postgres'
    ? await createThrowawayDatabase(process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'paygate_getcpu')
    : undefined;
const profDir = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-get-prof-')) : undefined;
const perfFile = process.env['BENCH_PERF'];
const port = await freePort();
console.log(`starting paygate serve on ${target} (port ${port})${profDir ? ', with --cpu-prof' : ''}`);
const child = spawnNode({
  args: [
    ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
    ...(perfFile ? ['--perf-basic-prof'] : []),
    ...gatewayCommand(ROOT),
  ],
  cwd: ROOT,
  port,
  env: gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db?.url, logLevel: process.env['LOG_LEVEL'] ?? 'info' }),
});
try {
  await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 180_000, 20); // PGlite starts in ~50 s on a machine at load 25
  const merchant = await api(child.url, '/partners/merchants/', createMerchantBody());
  const merchantId = String(merchant['id']);
  await api(child.url, `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const order = await api(
    child.url,
    '/pg/orders/',
    { ...createHostedOrderBody(), reference_id: `get-cpu-${Date.now()}` },
    { 'X-Merchant-ID': merchantId },
  );
  const url = `${child.url}/pg/orders/${String(order['order_id'])}`;
  const body = await (await fetch(url, { headers })).text();
  const barePort = await freePort();
  const bare = spawnNode({
    args: [path.join(ROOT, 'bench/servers/bare-express.mjs')],
    cwd: ROOT,
    port: barePort,
    env: { BENCH_BODY: body },
  });
  await waitUntil(bare, httpOk(`${bare.url}/pg/orders/x`), performance.now(), 30_000, 20);
  const ratios: number[] = [];
  try {
    // Both servers served a few thousand requests before any round counts: on a loaded machine a 1 s warm-up is a few
    // hundred requests, and the optimizing compiler (CPU of this process too) was still at work in the first rounds.
    const warmup = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 8);
    if (warmup > 0) {
      await load({ url, headers, connections: 50, durationSec: warmup, warmupSec: 0 });
      await load({ url: `${bare.url}/pg/orders/x`, headers, connections: 50, durationSec: warmup, warmupSec: 0 });
    }
    for (let round = 1; round <= rounds; round++) {
      const strace =
        process.env['BENCH_STRACE'] && round === 1
          ? spawn('strace', ['-c', '-f', '-p', String(child.pid)], { stdio: ['ignore', 'inherit', 'inherit'] })
          : undefined;
      const perf =
        perfFile && round === 1
          ? spawn('perf', ['record', '-F', '997', '-g', '-o', perfFile, '-p', String(child.pid)], {
              stdio: ['ignore', 'inherit', 'inherit'],
            })
          : undefined;
      const before = userSystemSeconds(child.pid);
      const r = await load({ url, headers, connections: 50, durationSec: seconds, warmupSec: 1, pid: child.pid });
      if (strace) {
        strace.kill('SIGINT');
        await new Promise((resolve) => strace.once('exit', resolve));
        console.log(`(strace: divide the calls by ${r.total} requests)`);
      }
      const after = userSystemSeconds(child.pid);
      if (perf) {
        perf.kill('SIGINT');
        await new Promise((resolve) => perf.once('exit', resolve));
        console.log(`(perf: ${perfFile}, ${r.total} requests)`);
      }
      const b = await load({ url: `${bare.url}/pg/orders/x`, headers, connections: 50, durationSec: seconds, warmupSec: 1, pid: bare.pid });
      const cpu = r.serverCpu ?? NaN;
      const served = r.rps * seconds;
      const perRequest = (s: number) => `${((s / served) * 1e6).toFixed(0)} µs`;
      const targetUs = (cpu / r.rps) * 1e6;
      const bareUs = ((b.serverCpu ?? NaN) / b.rps) * 1e6;
      ratios.push(bareUs / targetUs);
      console.log(
        `round ${round}: ${target}: ${r.rps.toFixed(0)} req/s, ${r.failures} failures, server CPU ${cpu.toFixed(2)} cores, ${targetUs.toFixed(0)} µs CPU per request` +
          ` (user ${perRequest(after.user - before.user)}, kernel ${perRequest(after.system - before.system)}), p50 ${r.p50} ms, RSS peak ${r.rssPeakMiB?.toFixed(0) ?? '?'} MiB;` +
          ` bare Express ${bareUs.toFixed(0)} µs CPU per request (${b.failures} failures): ${((bareUs / targetUs) * 100).toFixed(1)}% of bare Express per CPU-second`,
      );
    }
  } finally {
    await bare.stop();
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `${target}: median ${((sorted[Math.floor(sorted.length / 2)] ?? NaN) * 100).toFixed(1)}% of bare Express per CPU-second (rounds ${ratios.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')})`,
  );
  await new Promise((resolve) => setTimeout(resolve, 2000));
  console.log(`RSS 2 s after the load: ${rssMiB(child.pid)?.toFixed(0) ?? '?'} MiB`);
} finally {
  await child.stop();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  if (profDir) console.log(`profile: ${path.join(profDir, readdirSync(profDir)[0] ?? '(none written)')}`);
  // --perf-basic-prof also makes V8 write its isolate log into the working directory
  if (perfFile)
    for (const f of readdirSync(ROOT)) if (/^isolate-0x[0-9a-f]+-\d+-v8\.log$/.test(f)) rmSync(path.join(ROOT, f), { force: true });
}
