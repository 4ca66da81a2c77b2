/**
 * Client CPU per call, generated client against plain `fetch`, without the rest of the suite: the loop to use while
 * removing per-call cost from `@paygate/client` (the bench's client section runs the same calls, bench/run.ts).
 * The server (bare Express, bench/servers/bare-express.mjs) is a child process, so this process's CPU is the client's.
 *
 * Usage: npx tsx [--conditions=source] bench/tools/client-cpu.ts [rounds, default 7]
 *   CLIENT_CPU_ONLY=client|fetch   run only that side, concurrent, for `rounds` x 4000 calls (for --cpu-prof:
 *                                  node --cpu-prof --import tsx bench/tools/client-cpu.ts, then bench/profile-summary.ts)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPaygateClient } from '@paygate/client';
import { orderEnvelope } from '../lib/fixtures.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const headers = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
const rounds = Number(process.argv[2] ?? 7);
const only = process.env['CLIENT_CPU_ONLY'];
const SEQ = 1000;
const CONC = 4000;
const IN_FLIGHT = 50;

const port = await freePort();
const child = spawnNode({
  args: ['bench/servers/bare-express.mjs'],
  cwd: ROOT,
  port,
  env: { BENCH_BODY: JSON.stringify(orderEnvelope()) },
});
const id = 'OD1000000000000001';
try {
  await waitUntil(child, httpOk(`${child.url}/pg/orders/${id}`), performance.now(), 60_000, 20);
  const client = createPaygateClient({ baseUrl: child.url, clientId: PARTNER.id, clientSecret: PARTNER.secret, maxRetries: 0 });
  const viaFetch = async () => {
    const res = await fetch(`${child.url}/pg/orders/${id}`, { headers });
    const body = (await res.json()) as { success?: boolean };
    if (!res.ok || body.success !== true) throw new Error('fetch failed');
  };
  const viaClient = async () => {
    const r = await client.orders.get(id);
    if (!r.ok) throw new Error('client failed');
  };
  /** CPU µs per call of this process (user + system). */
  const cpuPerCall = async (calls: number, run: () => Promise<void>): Promise<number> => {
    const before = process.cpuUsage();
    await run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / calls;
  };
  const sequential = (fn: () => Promise<void>) =>
    cpuPerCall(SEQ, async () => {
      for (let i = 0; i < SEQ; i++) await fn();
    });
  const concurrent = (fn: () => Promise<void>) => {
    let next = 0;
    return cpuPerCall(CONC, async () => {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next++ < CONC) await fn();
        }),
      );
    });
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  if (only !== undefined) {
    const fn = only === 'fetch' ? viaFetch : viaClient;
    await concurrent(fn);
    const us: number[] = [];
    for (let i = 0; i < rounds; i++) us.push(await concurrent(fn));
    console.log(`${only} concurrent: ${us.map((x) => x.toFixed(1)).join(', ')} µs CPU/call (median ${median(us).toFixed(1)})`);
  } else {
    await sequential(viaFetch);
    await sequential(viaClient);
    await concurrent(viaFetch);
    await concurrent(viaClient);
    const seq: number[][] = [];
    const conc: number[][] = [];
    for (let i = 0; i < rounds; i++) {
      seq.push([await sequential(viaFetch), await sequential(viaClient)]);
      conc.push([await concurrent(viaFetch), await concurrent(viaClient)]);
    }
    for (const [name, rs] of [
      ['sequential', seq],
      ['concurrent', conc],
    ] as const) {
      // overhead = 1 - calls per CPU-second of the client / those of fetch, per round (as bench/run.ts)
      const overheads = rs.map(([f, c]) => 1 - f! / c!);
      console.log(
        `${name}: fetch ${median(rs.map((r) => r[0]!)).toFixed(1)} µs, client ${median(rs.map((r) => r[1]!)).toFixed(1)} µs CPU/call;` +
          ` overhead median ${(median(overheads) * 100).toFixed(1)}% (rounds ${overheads.map((o) => `${(o * 100).toFixed(0)}%`).join(', ')})`,
      );
    }
  }
} finally {
  await child.stop();
}
