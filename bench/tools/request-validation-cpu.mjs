// @ts-check
/**
 * The "Request validation overhead" bench section without the rest of the suite, as CPU per request (robust to a
 * loaded machine): bench/servers/validation.mjs in `plain` (an Express route with the same body parsers) and
 * `request` (createApp, precompiled request validation) modes, alternated for a few rounds, each under the same
 * autocannon load; the server's user+kernel CPU (from /proc) divided by the requests it answered. The overhead is
 * 1 - plain/request (what `npm run bench` reports per CPU-second). `--validators` adds the in-process loop over the
 * route-level validator alone (no HTTP, no routing). `npm run build` first.
 *
 * Usage: npx tsx bench/tools/request-validation-cpu.mjs [--rounds N] [--seconds S] [--modes plain,request,bare] [--validators]
 *   BENCH_CPU_PROF=1  also writes a --cpu-prof profile per server (directory printed)
 *   --callgrind N     instead of CPU time: instructions per request under valgrind's callgrind (repeatable on a loaded
 *                     machine): each server warmed up with 500 requests, counters zeroed, N requests counted
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { orderEnvelope } from '../lib/fixtures.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const rounds = Number(arg('rounds', 3));
const seconds = Number(arg('seconds', 4));
const modes = String(arg('modes', 'plain,request')).split(',');
const BODY = JSON.stringify(orderEnvelope());
const profDir = process.env['BENCH_CPU_PROF'] ? mkdtempSync(path.join(os.tmpdir(), 'paygate-rv-prof-')) : undefined;

/** user + kernel CPU seconds of a process. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function start(mode, callgrindOut) {
  const port = await freePort();
  const script = mode === 'bare' ? 'bench/servers/bare-express.mjs' : 'bench/servers/validation.mjs';
  const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${mode}-${Date.now()}.cpuprofile`] : [];
  const command =
    callgrindOut === undefined
      ? [process.execPath, [...prof, script, mode]]
      : [
          'valgrind',
          ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${callgrindOut}`, process.execPath, script, mode],
        ];
  const proc = spawn(command[0], command[1], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', BENCH_BODY: BODY, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => String(d).includes('LISTENING') && resolve(undefined));
    proc.once('exit', (code) => reject(new Error(`${mode} exited ${code}`)));
  });
  return { proc, url: `http://127.0.0.1:${port}/pg/orders/OD1000000000000001` };
}

async function measure(mode) {
  const { proc, url } = await start(mode);
  try {
    await autocannon({ url, connections: 50, duration: 1 });
    const c0 = cpuSeconds(/** @type {number} */ (proc.pid));
    const r = await autocannon({ url, connections: 50, duration: seconds });
    const c1 = cpuSeconds(/** @type {number} */ (proc.pid));
    const bad = r.non2xx + r.errors + r.timeouts;
    if (bad > 0) throw new Error(`${mode}: ${bad} failed requests`);
    return ((c1 - c0) / r.requests.total) * 1e6;
  } finally {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }
}

/** Sends `n` GET requests, 8 at a time on kept-alive connections. */
async function send(url, n) {
  const r = await autocannon({ url, connections: 4, amount: n, timeout: 600 });
  if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${r.non2xx + r.errors + r.timeouts} failed requests`);
}

/** Instructions per request of one server under callgrind. */
async function instructions(mode, n) {
  const out = path.join(os.tmpdir(), `paygate-rv-callgrind-${mode}-${process.pid}.out`);
  const { proc, url } = await start(mode, out);
  const control = (flag) =>
    new Promise((resolve) => spawn('callgrind_control', [flag, String(proc.pid)], { stdio: 'ignore' }).once('exit', resolve));
  try {
    await send(url, 500);
    await control('-z');
    await send(url, n);
    await control('-d');
  } finally {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }
  // `callgrind_control -d` writes the counted requests to `<out>.1`; `<out>` holds what ran after it, until exit
  const { rmSync } = await import('node:fs');
  const total = Number(/^totals: (\d+)/m.exec(readFileSync(`${out}.1`, 'utf8'))?.[1] ?? NaN);
  rmSync(out, { force: true });
  rmSync(`${out}.1`, { force: true });
  return total / n;
}

if (arg('callgrind', undefined) !== undefined) {
  const n = Number(arg('callgrind', 2000));
  const per = {};
  for (const mode of modes) {
    per[mode] = await instructions(mode, n);
    console.log(`${mode}: ${(per[mode] / 1000).toFixed(1)} k instructions per request (callgrind)`);
  }
  if (per['plain'] && per['request'])
    console.log(`request validation overhead (1 - plain/request): ${((1 - per['plain'] / per['request']) * 100).toFixed(1)}%`);
  process.exit(0);
}

const results = Object.fromEntries(modes.map((m) => [m, /** @type {number[]} */ ([])]));
for (let round = 0; round < rounds; round++) {
  for (const mode of modes) results[mode].push(await measure(mode));
  console.log(`round ${round + 1}: ${modes.map((m) => `${m} ${results[m].at(-1).toFixed(1)} µs`).join(', ')}`);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; median server CPU per request: ${modes.map((m) => `${m} ${median(results[m]).toFixed(1)} µs`).join(', ')}`,
);
if (results['plain'] && results['request']) {
  const perRound = results['plain'].map((p, i) => 1 - p / results['request'][i]);
  console.log(
    `request validation overhead (1 - plain/request per round): ${perRound.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')}; median ${(median(perRound) * 100).toFixed(1)}% (goal <= 10%)`,
  );
}
if (profDir) console.log(`profiles in ${profDir}`);

if (process.argv.includes('--validators')) {
  // The route-level validator alone, in-process: three operations, 100,000 calls per round, best of 7 rounds.
  const imp = (p) => import(pathToFileURL(path.join(ROOT, p)).href);
  const rv = await imp('packages/server/dist/runtime/request-validation.js');
  const { requestValidators } = await imp('packages/server/dist/generated/request-validators.gen.js');
  const { operations } = await imp('packages/contract/dist/generated/operations.gen.js');
  const limits = { fileSize: 5 << 20, files: 1, fields: 20, fieldSize: 65536 };
  const op = (id) => operations.find((o) => o.operationId === id);
  const cases = [
    [
      'GET order (path param)',
      'getOrder',
      () => ({
        method: 'GET',
        headers: {},
        params: { order_id: 'OD1000000000000001' },
        originalUrl: '/pg/orders/OD1000000000000001',
        query: {},
        path: '/pg/orders/OD1000000000000001',
      }),
    ],
    [
      'GET payments (4 query params)',
      'listPayments',
      () => ({
        method: 'GET',
        headers: {},
        params: {},
        originalUrl: '/pg/payments/?page=2&page_size=10&status=CAPTURED&mop_type=UPI',
        query: { page: '2', page_size: '10', status: 'CAPTURED', mop_type: 'UPI' },
        path: '/pg/payments/',
      }),
    ],
    [
      'POST refund (JSON body + header)',
      'createRefund',
      () => ({
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71' },
        params: {},
        originalUrl: '/pg/refunds',
        query: {},
        path: '/pg/refunds',
        body: { payment_id: 'PR1000000000000001', refund_amount: '10.00' },
      }),
    ],
  ];
  for (const [label, id, make] of cases) {
    const o = op(id);
    const [validate] = rv
      .createRequestValidator(o, requestValidators[id], { allow: o.method.toUpperCase(), uploadLimits: limits })
      .slice(-1);
    let failures = 0;
    const next = (e) => {
      if (e) failures++;
    };
    const N = 100000;
    let best = Infinity;
    for (let round = 0; round < 7; round++) {
      const reqs = Array.from({ length: N }, make);
      const t = process.cpuUsage();
      for (let i = 0; i < N; i++) validate(reqs[i], {}, next);
      const u = process.cpuUsage(t);
      best = Math.min(best, (u.user + u.system) / N);
    }
    console.log(`${label.padEnd(36)} ${(best * 1000).toFixed(0).padStart(6)} ns CPU/request${failures ? ` (${failures} rejected!)` : ''}`);
  }
}
