/**
 * Before/after of the gateway's CPU per hosted order, robust to a busy shared machine: this checkout's `paygate serve`
 * and another built checkout's run side by side on one PostgreSQL database and are loaded AT THE SAME TIME (two
 * autocannon instances, half the connections each), so whatever else the machine does slows both alike. Each round
 * reads each gateway's CPU (user + kernel, /proc) around the same window and divides by the orders it answered; the
 * figure is the median of the rounds' ratios (this / other). `npm run build` in both checkouts first.
 *
 * Usage: BENCH_COMPARE_ROOT=/path/to/other/checkout npx tsx bench/tools/post-order-ab.ts [seconds, default 5] [rounds, default 7]
 *   BENCH_IDEMPOTENCY=1   every POST carries a fresh Idempotency-Key
 *   BENCH_AB_OTHER_FIRST=1  start the other checkout's gateway first (run both ways to rule out a start-order bias)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
import { gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { cpuSeconds } from '../lib/load.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const other = process.env['BENCH_COMPARE_ROOT'];
if (!other) throw new Error('BENCH_COMPARE_ROOT=/path/to/a/built/checkout is required');
const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 7);
const CONNECTIONS = 25; // per gateway
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const auth = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
const withKey = process.env['BENCH_IDEMPOTENCY'] === '1';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-post-ab-'));
const db = await createThrowawayDatabase(process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'paygate_postab');

async function start(root: string) {
  const port = await freePort();
  const child = spawnNode({
    args: gatewayCommand(root),
    cwd: root,
    port,
    env: gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: process.env['LOG_LEVEL'] ?? 'info' }),
  });
  await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 180_000, 20);
  return child;
}

async function api(base: string, p: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${p}`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`POST ${p} -> ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const otherFirst = process.env['BENCH_AB_OTHER_FIRST'] === '1';
const first = await start(otherFirst ? other : ROOT);
const second = await start(otherFirst ? ROOT : other);
const [mine, theirs] = otherFirst ? [second, first] : [first, second];
try {
  const merchantId = String((await api(mine.url, '/partners/merchants/', createMerchantBody()))['id']);
  await api(mine.url, `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const template = createHostedOrderBody();
  const headers: Record<string, string> = { ...auth, 'Content-Type': 'application/json', 'X-Merchant-ID': merchantId };
  const run = Date.now();
  let n = 0;
  const loadOn = (url: string, durationSec: number) =>
    autocannon({
      url: `${url}/pg/orders/`,
      connections: CONNECTIONS,
      duration: durationSec,
      method: 'POST',
      headers,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({
            ...req,
            method: 'POST',
            path: '/pg/orders/',
            headers: withKey ? { ...headers, 'Idempotency-Key': randomUUID() } : headers,
            body: JSON.stringify({ ...template, reference_id: `ab-${run}-${n++}` }),
          }),
        },
      ],
      timeout: 10,
    });
  await Promise.all([loadOn(mine.url, 3), loadOn(theirs.url, 3)]);
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const a0 = cpuSeconds(mine.pid)!;
    const b0 = cpuSeconds(theirs.pid)!;
    const [a, b] = await Promise.all([loadOn(mine.url, seconds), loadOn(theirs.url, seconds)]);
    const aCpu = (cpuSeconds(mine.pid)! - a0) / a.requests.total;
    const bCpu = (cpuSeconds(theirs.pid)! - b0) / b.requests.total;
    ratios.push(aCpu / bCpu);
    const fail = (r: typeof a) => r.non2xx + r.errors + r.timeouts;
    console.log(
      `round ${round}: this ${(aCpu * 1e6).toFixed(0)} µs CPU/order (${a.requests.total} orders, ${fail(a)} failures), other ${(bCpu * 1e6).toFixed(0)} µs (${b.requests.total}, ${fail(b)}): ${((aCpu / bCpu) * 100).toFixed(1)}%`,
    );
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(
    `CPU per order, this / other: median ${((sorted[Math.floor(sorted.length / 2)] ?? NaN) * 100).toFixed(1)}% (rounds ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')})`,
  );
} finally {
  await mine.stop();
  await theirs.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
