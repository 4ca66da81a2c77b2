/**
 * BENCH_ONLY=startup: how long a user waits for the gateway's first answer (decision D129).
 *
 * - first start: what `npm start` runs on a fresh clone after its build, with nothing else to reuse: the docs site
 *   built (into a temporary directory, so the repository's docs/site stays as it is) and `paygate serve` on an empty
 *   PGlite data dir (database created, migrations applied), timed from the spawn of that chain to the first 200 on
 *   /healthz;
 * - second start: `npm start`'s chain again with everything reused: `npm run build` (incremental, nothing changed),
 *   `npm run docs` (its content hash matches: skipped) and `paygate serve` on the now existing data dir;
 * - beside them, `paygate serve` alone on an empty and on an existing data dir (median of 3), which is what is left
 *   of a start when the build and docs steps are reused, and those two steps alone with nothing to do.
 *
 * Both chains start from this process, the way `npm start` runs them (`sh -c "... && ... && node ... serve"`); the
 * `npm ci` and the first full `tsc -b` of a fresh clone are not included (the benchmark's own build ran just before).
 *
 * Then where a start goes (D170 start-up stages marked): `paygate serve` on the existing data dir, spawn -> first 200 on GET order (an order
 * seeded first), median of 3 rounds alternating with bare Express, and its stages as the gateway logs them at debug
 * level (bench/tools/coldstart-stages.mjs): one row per stage, ms since the process started, the step's own ms and the
 * CPU ms used by then; the first request's own time last (it compiles the response serializer).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Budget } from '../lib/report.js';
import { gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import { createHostedOrderBody, createMerchantBody } from '../lib/fixtures.js';
// D170: the real `paygate serve` per stage, against bare Express in the same rounds
import { formatColdStarts, gatewayTarget, measureColdStarts } from '../tools/coldstart-stages.mjs';

export interface StartupRow {
  section: 'startup';
  name: string;
  ms: number;
  baseline?: string;
  ratio?: number;
  /** The shape of bench/run.ts's result rows. */
  [key: string]: unknown;
}

const FIRST = 'npm start chain, first start (docs built, empty PGlite data dir)';
const SECOND = 'npm start chain, second start (build and docs reused, existing data dir)';
/** The goal: the first answer within seconds on a second start. */
const SECOND_START_GOAL_MS = 5000;

interface Options {
  root: string;
  partner: { id: string; secret: string };
  log: (line: string) => void;
}

/** Spawn `command` in a shell (its own process group) and time it to the first 200 on /healthz. */
async function timeChain(o: Options, command: string, dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  let output = '';
  const proc = spawn('sh', ['-c', command], {
    cwd: o.root,
    detached: true,
    env: { ...process.env, ...gatewayEnv({ partner: o.partner, dataDir, logLevel: 'warn' }), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    const healthz = httpOk(`http://127.0.0.1:${port}/healthz`);
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`\`${command}\` exited (${proc.exitCode ?? proc.signalCode}):\n${output}`);
      if (await healthz().catch(() => false)) return performance.now() - started;
      if (performance.now() - started > 300_000) throw new Error(`\`${command}\`: no answer on /healthz in 300 s:\n${output}`);
      await sleep(20);
    }
  } finally {
    try {
      process.kill(-proc.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** `paygate serve` alone (as spawnNode runs it), spawn to the first 200 on /healthz, median of 3. */
async function timeServe(o: Options, dataDir: () => string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const t = performance.now();
    const child = spawnNode({
      args: gatewayCommand(o.root),
      cwd: o.root,
      port,
      env: gatewayEnv({ partner: o.partner, dataDir: dataDir(), logLevel: 'warn' }),
    });
    try {
      times.push(await waitUntil(child, httpOk(`${child.url}/healthz`), t, 120_000, 5));
    } finally {
      await child.stop();
    }
  }
  return times.sort((a, b) => a - b)[1]!;
}

export async function runStartup(o: Options): Promise<StartupRow[]> {
  o.log('Start-up: spawn -> first 200 on /healthz, first start (nothing reused) and second start (everything reused)');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-startup-'));
  const rows: StartupRow[] = [];
  try {
    const serve = `exec node ${gatewayCommand(o.root).join(' ')}`;
    const dataDir = path.join(scratch, 'data');
    // the site into a scratch directory: `npm run docs` with --out always builds, as on a fresh clone
    const firstMs = await timeChain(
      o,
      `npm run -s build && npx tsx scripts/docs.ts --out ${path.join(scratch, 'site')} && ${serve}`,
      dataDir,
    );
    rows.push({ section: 'startup', name: FIRST, ms: firstMs });
    o.log(`  ${FIRST}: ${(firstMs / 1000).toFixed(2)} s`);
    // make the repository's docs/site current (untimed), so the second start finds its content hash as npm start would
    const warm = spawnSync('npm', ['run', '-s', 'docs'], { cwd: o.root, encoding: 'utf8', timeout: 300_000 });
    if (warm.status !== 0) throw new Error(`npm run docs failed:\n${warm.stdout}${warm.stderr}`);
    const secondMs = await timeChain(o, `npm run -s build && npm run -s docs && ${serve}`, dataDir);
    rows.push({ section: 'startup', name: SECOND, ms: secondMs, baseline: 'first start', ratio: secondMs / firstMs });
    o.log(`  ${SECOND}: ${(secondMs / 1000).toFixed(2)} s (${((secondMs / firstMs) * 100).toFixed(0)}% of the first)`);
    let fresh = 0;
    const emptyMs = await timeServe(o, () => path.join(scratch, `empty-${fresh++}`));
    rows.push({ section: 'startup', name: 'paygate serve alone, empty PGlite data dir', ms: emptyMs });
    const existingMs = await timeServe(o, () => dataDir);
    rows.push({
      section: 'startup',
      name: 'paygate serve alone, existing PGlite data dir',
      ms: existingMs,
      baseline: 'empty data dir',
      ratio: existingMs / emptyMs,
    });
    o.log(`  paygate serve alone: empty data dir ${emptyMs.toFixed(0)} ms, existing ${existingMs.toFixed(0)} ms`);
    rows.push(...(await stageRows(o, dataDir)));
    // where a second start's time goes: the two steps before `paygate serve`, each with nothing to do
    for (const [name, args] of [
      ['npm run build, nothing changed (tsc -b up to date)', ['run', '-s', 'build']],
      ['npm run docs, inputs unchanged (content hash matches)', ['run', '-s', 'docs']],
    ] as const) {
      const t = performance.now();
      const step = spawnSync('npm', args, { cwd: o.root, encoding: 'utf8', timeout: 300_000 });
      if (step.status !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${step.stdout}${step.stderr}`);
      const ms = performance.now() - t;
      rows.push({ section: 'startup', name, ms });
      o.log(`  ${name}: ${ms.toFixed(0)} ms`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return rows;
}

/** A merchant and an order in the data dir (through a running gateway), for GET order as the first request. */
async function seedOrder(o: Options, dataDir: string): Promise<string> {
  const port = await freePort();
  const t = performance.now();
  const child = spawnNode({
    args: gatewayCommand(o.root),
    cwd: o.root,
    port,
    env: gatewayEnv({ partner: o.partner, dataDir, logLevel: 'warn' }),
  });
  try {
    await waitUntil(child, httpOk(`${child.url}/healthz`), t, 120_000, 20);
    const call = async (method: string, p: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${child.url}${p}`, {
        method,
        headers: { 'X-Client-ID': o.partner.id, 'X-Client-Secret': o.partner.secret, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data?: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json.data ?? {};
    };
    const merchantId = String((await call('POST', '/partners/merchants/', createMerchantBody()))['id']);
    await call('POST', `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
    const order = await call(
      'POST',
      '/pg/orders/',
      { ...createHostedOrderBody(), reference_id: `bench-startup-${Date.now()}` },
      {
        'X-Merchant-ID': merchantId,
        'Idempotency-Key': `bench-startup-${Date.now()}`,
      },
    );
    return String(order['order_id']);
  } finally {
    await child.stop();
  }
}

/** `paygate serve` on the existing data dir against bare Express, and its stages, as report rows. */
async function stageRows(o: Options, dataDir: string): Promise<StartupRow[]> {
  const orderId = await seedOrder(o, dataDir);
  const [bare, gateway] = await measureColdStarts({
    targets: [gatewayTarget('paygate serve, existing PGlite data dir', { dataDir, orderId, partner: o.partner })],
    rounds: 3,
  });
  if (bare === undefined || gateway === undefined) return [];
  o.log(formatColdStarts([bare, gateway]).replace(/^/gm, '  '));
  const rows: StartupRow[] = [
    { section: 'startup', name: 'bare Express 5, spawn -> first 200 (median of 3, alternating)', ms: bare.ms, cpuMs: bare.cpuMs },
    {
      section: 'startup',
      name: `paygate serve, existing PGlite data dir, spawn -> first GET order (CPU ${gateway.cpuMs.toFixed(0)} ms, ${(gateway.cpuMs / bare.cpuMs).toFixed(1)}x bare's)`,
      ms: gateway.ms,
      cpuMs: gateway.cpuMs,
      baseline: 'bare Express',
      ratio: gateway.ms / bare.ms,
    },
  ];
  let previous = { ms: 0, cpuMs: 0 };
  for (const s of gateway.stages) {
    rows.push({
      section: 'startup',
      name: `  stage (ms since the process started): ${s.stage} (+${s.ms - previous.ms} ms; CPU ${s.cpuMs} ms, +${s.cpuMs - previous.cpuMs})`,
      ms: s.ms,
    });
    previous = s;
  }
  rows.push({
    section: 'startup',
    name: '  stage: first request after listening (compiles its response serializer)',
    ms: gateway.firstRequestMs,
  });
  return rows;
}

/** The start-up goal, from this run's rows. */
export function startupBudgets(rows: { section: string; name: string; ms?: number }[]): Budget[] {
  const first = rows.find((r) => r.section === 'startup' && r.name === FIRST);
  const second = rows.find((r) => r.section === 'startup' && r.name === SECOND);
  if (first?.ms === undefined || second?.ms === undefined) return [];
  return [
    {
      name: 'Second start (npm start, build and docs reused, existing data dir) to the first answer',
      target: `< ${SECOND_START_GOAL_MS / 1000} s`,
      value: `${(second.ms / 1000).toFixed(2)} s (first start ${(first.ms / 1000).toFixed(2)} s)`,
      met: second.ms < SECOND_START_GOAL_MS,
    },
  ];
}
