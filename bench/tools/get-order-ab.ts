/**
 * Before / after in ONE run: server CPU per GET /pg/orders/{order_id} of this checkout's `paygate serve` and of another
 * built checkout's (BENCH_BASELINE_ROOT, e.g. a `git worktree` of main after `npm run build`), with bare Express
 * (answering the same body) in every round, the three loaded one after the other in an order that rotates per round,
 * so the drift of a shared machine hits all three alike. Each gateway has its own database and order. `npm run build`
 * first, in both checkouts.
 *
 * Usage: BENCH_BASELINE_ROOT=/path/to/main npx tsx bench/tools/get-order-ab.ts [postgres|pglite] [seconds, default 5] [rounds, default 5]
 *   BENCH_ORDERS=<n>     each gateway gets n orders and the load spreads over them (default 1, as `npm run bench`)
 *   BENCH_WARMUP_SECONDS load on each server before the rounds (default 8)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
import { BENCH_PARTNER, BENCH_PARTNER_HEADERS, benchPost, gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { load, type LoadResult } from '../lib/load.js';
import { freePort, httpOk, spawnNode, waitUntil, type Child } from '../lib/proc.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BASELINE = process.env['BENCH_BASELINE_ROOT'];
if (!BASELINE) throw new Error('set BENCH_BASELINE_ROOT to another built checkout');
const target = process.argv[2] ?? 'postgres';
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 5);
const orderCount = Number(process.env['BENCH_ORDERS'] ?? 1);
const PARTNER = BENCH_PARTNER;
const headers = BENCH_PARTNER_HEADERS;
if (target !== 'postgres' && target !== 'pglite') throw new Error(`unknown target ${target}: use postgres or pglite`);

const api = benchPost;

interface Server {
  name: string;
  child: Child;
  paths: string[];
  cleanup: () => Promise<void>;
}

async function startGateway(name: string, root: string): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-get-ab-'));
  const db: ThrowawayDatabase | undefined =
    target === 'postgres'
      ? await createThrowawayDatabase(process.env['BENCH_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'paygate_getab')
      : undefined;
  const child = spawnNode({
    args: gatewayCommand(root),
    cwd: root,
    port: await freePort(),
    env: gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db?.url, logLevel: process.env['LOG_LEVEL'] ?? 'info' }),
  });
  await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 180_000, 20);
  const merchant = await api(child.url, '/partners/merchants/', createMerchantBody());
  const merchantId = String(merchant['id']);
  await api(child.url, `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
  const paths: string[] = [];
  for (let i = 0; i < orderCount; i++) {
    const order = await api(
      child.url,
      '/pg/orders/',
      { ...createHostedOrderBody(), reference_id: `get-ab-${Date.now()}-${i}` },
      { 'X-Merchant-ID': merchantId },
    );
    paths.push(`/pg/orders/${String(order['order_id'])}`);
  }
  return {
    name,
    child,
    paths,
    cleanup: async () => {
      await child.stop();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function loadOn(server: Server, durationSec: number, warmupSec: number, pid?: number): Promise<LoadResult> {
  return load({
    url: `${server.child.url}${server.paths[0]!}`,
    headers,
    connections: 50,
    durationSec,
    warmupSec,
    ...(pid !== undefined ? { pid } : {}),
    ...(server.paths.length > 1 ? { paths: server.paths } : {}),
  });
}

const servers: Server[] = [];
try {
  servers.push(await startGateway('this checkout', ROOT));
  servers.push(await startGateway('baseline', BASELINE));
  const first = servers[0]!;
  const body = await (await fetch(`${first.child.url}${first.paths[0]!}`, { headers })).text();
  const bareChild = spawnNode({
    args: [path.join(ROOT, 'bench/servers/bare-express.mjs')],
    cwd: ROOT,
    port: await freePort(),
    env: { BENCH_BODY: body },
  });
  await waitUntil(bareChild, httpOk(`${bareChild.url}/pg/orders/x`), performance.now(), 30_000, 20);
  servers.push({ name: 'bare Express', child: bareChild, paths: ['/pg/orders/x'], cleanup: () => bareChild.stop() });
  const warmup = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 8);
  for (const s of servers) if (warmup > 0) await loadOn(s, warmup, 0);
  const perRequest: number[][] = servers.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (let j = 0; j < servers.length; j++) {
      const i = (j + round) % servers.length;
      const s = servers[i]!;
      const r = await loadOn(s, seconds, 1, s.child.pid);
      const us = ((r.serverCpu ?? NaN) / r.rps) * 1e6;
      perRequest[i]!.push(us);
      line.push(`${s.name} ${us.toFixed(0)} µs (${r.rps.toFixed(0)} req/s, ${r.failures} failures)`);
    }
    const bare = perRequest[2]![round]!;
    console.log(
      `round ${round + 1}: ${line.join('; ')}; of bare Express per CPU-second: this ${((bare / perRequest[0]![round]!) * 100).toFixed(1)}%, baseline ${((bare / perRequest[1]![round]!) * 100).toFixed(1)}%`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratios = (i: number) => perRequest[2]!.map((b, r) => b / perRequest[i]![r]!);
  console.log(
    `${target}, ${orderCount} order(s): median µs CPU per request: this ${median(perRequest[0]!).toFixed(0)}, baseline ${median(perRequest[1]!).toFixed(0)}, bare Express ${median(perRequest[2]!).toFixed(0)}; ` +
      `median of bare Express per CPU-second: this ${(median(ratios(0)) * 100).toFixed(1)}%, baseline ${(median(ratios(1)) * 100).toFixed(1)}%; ` +
      `this / baseline CPU per request, median of rounds: ${median(perRequest[0]!.map((x, r) => x / perRequest[1]![r]!)).toFixed(3)}`,
  );
} finally {
  for (const s of servers) await s.cleanup().catch(() => undefined);
}
