// @ts-check
/**
 * Cold start of the real `paygate serve` (the bench's gatewayCommand, on the BUILT code: run `npm run build` first),
 * per stage and against bare Express in the same run (D170, issue 23):
 *
 *   PAYGATE_PARTNER_CLIENT_ID=... PAYGATE_PARTNER_CLIENT_SECRET=... node bench/tools/coldstart-stages.mjs \
 *     [--rounds 5] [[--root <another checkout, for the targets after it>] [--entry <a gateway entry file, for the targets
 *     after it; --entry - for paygate serve again>] --pglite <existing data dir> <order id>] [--postgres <DATABASE_URL>
 *     <order id> [<data dir of its master.key>]]
 *
 * Each round spawns bare Express (bench/servers/bare-express.mjs) and each gateway in turn, and times spawn -> first
 * 200 on GET /pg/orders/{order id} (polled every 5 ms), also reading the child's CPU time (user + system, /proc) at
 * that answer: on a shared machine CPU time is steadier than wall time. The gateway runs with LOG_LEVEL=debug so that
 * it logs its start-up stages (packages/reference/src/core/startup-stages.ts): ms and CPU ms since the process started
 * at the end of each stage; the first request's own time is measured here from the moment the gateway listened.
 * Prints medians; bench/sections/startup.ts calls {@link measureColdStarts} for its report rows.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Linux clock ticks per second (CLK_TCK) of /proc/<pid>/stat's utime and stime. */
const CLK_TCK = 100;

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** CPU ms (user + system) a live process has used, from /proc (undefined where there is none). */
function cpuMsOf(/** @type {number} */ pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/**
 * @typedef {{ stage: string, ms: number, cpuMs: number }} Stage
 * @typedef {{ ms: number, cpuMs: number | undefined, stages: Stage[], firstRequestMs: number | undefined }} ColdStart
 * @typedef {{ name: string, args: string[], env: Record<string, string | undefined>, path: string, headers?: Record<string, string> }} Target
 */

/**
 * Spawn one target and time it to its first 200 on `path`.
 * @param {Target} target
 * @returns {Promise<ColdStart>}
 */
export async function coldStartOnce(target) {
  const port = await freePort();
  const started = performance.now();
  const startedAt = performance.timeOrigin + started;
  const proc = spawn(process.execPath, target.args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...target.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (c) => (output += c));
  proc.stderr.on('data', (c) => (output += c));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  /** @type {{ ms: number, cpuMs: number | undefined }} */
  let answered;
  try {
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${target.name} exited:\n${output}`);
      const res = await fetch(`http://127.0.0.1:${port}${target.path}`, {
        headers: target.headers ?? {},
        signal: AbortSignal.timeout(5000),
      }).catch(() => undefined);
      if (res) {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${target.name}: GET ${target.path} answered ${res.status}:\n${output}`);
        answered = { ms: performance.now() - started, cpuMs: cpuMsOf(/** @type {number} */ (proc.pid)) };
        break;
      }
      if (performance.now() - started > 120_000) throw new Error(`${target.name}: no answer in 120 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
  // Read after the exit: `paygate serve` writes its log in batches (D149 batched standard output logging; D168 banner hold writes to batched output), flushed at exit, so the stages line
  // may not have reached the pipe when the first request is answered.
  const stages = stagesIn(output);
  const listening = stages.find((s) => s.stage === 'listening');
  return { ...answered, stages, firstRequestMs: listening ? firstRequest(listening, startedAt, answered.ms, output) : undefined };
}

/** The `startupStages` of the gateway's debug line, if it logged one. */
function stagesIn(/** @type {string} */ output) {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"startupStages"')) continue;
    try {
      return /** @type {Stage[]} */ (JSON.parse(line).startupStages);
    } catch {
      /* not JSON */
    }
  }
  return [];
}

/**
 * The first request's time: from the moment the gateway listened to the first 200 here. The child's clock starts at
 * its process start, which the child logs as `processStartedAt` (epoch ms) beside the stages.
 */
function firstRequest(
  /** @type {Stage} */ listening,
  /** @type {number} */ startedAt,
  /** @type {number} */ ms,
  /** @type {string} */ output,
) {
  for (const line of output.split('\n')) {
    if (!line.includes('"startupStages"')) continue;
    const origin = JSON.parse(line).processStartedAt;
    if (typeof origin !== 'number') return undefined;
    return startedAt + ms - (origin + listening.ms);
  }
  return undefined;
}

const median = (/** @type {number[]} */ xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : /** @type {number} */ (s[Math.floor((s.length - 1) / 2)]);
};

/**
 * Bare Express and each gateway target in turn, `rounds` times; medians of the wall and CPU times, and of each stage.
 * @param {{ targets: Target[], rounds?: number, log?: (line: string) => void }} o
 */
export async function measureColdStarts(o) {
  /** @type {Target} */
  const bare = {
    name: 'bare Express 5',
    args: ['bench/servers/bare-express.mjs'],
    env: { BENCH_BODY: '{}' },
    path: '/pg/orders/OD1000000000000001',
  };
  const all = [bare, ...o.targets];
  /** @type {Map<string, ColdStart[]>} */
  const runs = new Map(all.map((t) => [t.name, []]));
  for (let round = 0; round < (o.rounds ?? 5); round++) {
    for (const target of all) {
      const run = await coldStartOnce(target);
      runs.get(target.name)?.push(run);
      o.log?.(`  round ${round + 1} ${target.name}: ${run.ms.toFixed(0)} ms, CPU ${run.cpuMs ?? '?'} ms`);
    }
  }
  return all.map((target) => {
    const r = runs.get(target.name) ?? [];
    const stageNames = [...new Set(r.flatMap((x) => x.stages.map((s) => s.stage)))];
    return {
      name: target.name,
      ms: median(r.map((x) => x.ms)),
      cpuMs: median(r.flatMap((x) => (x.cpuMs === undefined ? [] : [x.cpuMs]))),
      roundsMs: r.map((x) => Math.round(x.ms)),
      firstRequestMs: median(r.flatMap((x) => (x.firstRequestMs === undefined ? [] : [x.firstRequestMs]))),
      stages: stageNames.map((stage) => ({
        stage,
        ms: median(r.flatMap((x) => x.stages.filter((s) => s.stage === stage).map((s) => s.ms))),
        cpuMs: median(r.flatMap((x) => x.stages.filter((s) => s.stage === stage).map((s) => s.cpuMs))),
      })),
    };
  });
}

/** `paygate serve` as the benchmarks run it (bench/lib/gateway.ts), logging its stages. */
export function gatewayTarget(
  /** @type {string} */ name,
  /** @type {{ dataDir?: string, databaseUrl?: string, orderId: string, partner: { id: string, secret: string }, root?: string }} */ o,
) {
  return {
    name,
    // `root`: another checkout's build (e.g. a worktree of the baseline commit, for a before/after in one run)
    args: [path.join(o.root ?? ROOT, 'generators/bin/paygate.js'), 'serve'],
    env: {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PAYGATE_PARTNER_CLIENT_ID: o.partner.id,
      PAYGATE_PARTNER_CLIENT_SECRET: o.partner.secret,
      PAYGATE_DATA_DIR: o.dataDir ?? path.join(os.tmpdir(), 'paygate-bench-unused'),
      DATABASE_URL: o.databaseUrl,
      PAYGATE_RATE_LIMIT: '1000000000',
      LOG_LEVEL: 'debug',
    },
    path: `/pg/orders/${o.orderId}`,
    headers: { 'X-Client-ID': o.partner.id, 'X-Client-Secret': o.partner.secret },
  };
}

/** One table: each target's medians, then each gateway's stages (ms since its process started, and the step). */
export function formatColdStarts(/** @type {Awaited<ReturnType<typeof measureColdStarts>>} */ results) {
  const bare = results[0];
  const lines = [];
  for (const r of results) {
    const vs = bare && r !== bare ? ` (${(r.ms / bare.ms).toFixed(2)}x bare Express; CPU ${(r.cpuMs / bare.cpuMs).toFixed(2)}x)` : '';
    lines.push(`${r.name}: first 200 after ${r.ms.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms${vs}; rounds ${r.roundsMs.join(', ')} ms`);
    let previous = { ms: 0, cpuMs: 0 };
    for (const s of r.stages) {
      lines.push(
        `  ${String(s.ms).padStart(5)} ms (+${String(s.ms - previous.ms).padStart(4)}), CPU ${String(s.cpuMs).padStart(5)} ms (+${String(s.cpuMs - previous.cpuMs).padStart(4)})  ${s.stage}`,
      );
      previous = s;
    }
    if (r.stages.length > 0) lines.push(`  first request after listening: ${r.firstRequestMs.toFixed(0)} ms`);
  }
  return lines.join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const args = process.argv.slice(2);
  const partner = { id: process.env['PAYGATE_PARTNER_CLIENT_ID'] ?? '', secret: process.env['PAYGATE_PARTNER_CLIENT_SECRET'] ?? '' };
  /** @type {Target[]} */
  const targets = [];
  let rounds = 5;
  /** @type {string | undefined} */
  let root;
  /** @type {string | undefined} a file that runs `main` of @paygate/reference's cli (bench/tools/serve-bundle-experiment.mjs, D188) */
  let entry;
  const label = () => (root ? ` [${root}]` : '') + (entry ? ` [${entry}]` : '');
  const withEntry = (/** @type {Target} */ t) => (entry ? { ...t, args: [path.resolve(ROOT, entry), 'serve'] } : t);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--rounds') rounds = Number(args[++i]);
    else if (args[i] === '--root') root = args[++i];
    else if (args[i] === '--entry') entry = args[++i] === '-' ? undefined : args[i];
    else if (args[i] === '--pglite')
      targets.push(
        withEntry(
          gatewayTarget(`paygate serve, existing PGlite data dir${label()}`, {
            dataDir: args[++i],
            orderId: String(args[++i]),
            partner,
            root,
          }),
        ),
      );
    else if (args[i] === '--postgres') {
      const [databaseUrl, orderId] = [args[++i], String(args[++i])];
      // the data dir holding the sandbox master key the database was sealed with, when not PAYGATE_MASTER_KEY
      const dataDir = args[i + 1]?.startsWith('--') === false ? args[++i] : undefined;
      targets.push(
        withEntry(
          gatewayTarget(`paygate serve, PostgreSQL (migrated)${label()}`, {
            databaseUrl,
            orderId,
            partner,
            root,
            ...(dataDir ? { dataDir } : {}),
          }),
        ),
      );
    } else throw new Error(`unknown argument ${args[i]} (see the comment at the top of this file)`);
  }
  console.log(formatColdStarts(await measureColdStarts({ targets, rounds, log: (l) => console.log(l) })));
}
