/**
 * docs/benchmarks.md, written by `npm run bench` from the run that just finished (never edited by hand): machine,
 * load average, command, every goal of issue 12 met or not met with its figure, the full table, and the CPU profile
 * of the gateway that explains what is left.
 */
import { writeFileSync } from 'node:fs';
import type { ProfileSummary } from './profile.js';

export interface Budget {
  name: string;
  target: string;
  value: string;
  met: boolean | null;
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
    'the cores. The goals use that ratio where it exists. Compare ratios within a run, never absolute numbers across runs.',
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
    ...r.budgets.map((b) => `| ${b.name} | ${b.target} | ${b.value} | ${b.met ? 'met' : '**not met**'} |`),
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
      'Server CPU-seconds (process tree) divided by requests answered, in the runs above. A ratio goal of 40% of bare Express',
      'per CPU-second means at most 2.5 times its cost per request.',
      '',
      '| Server | µs of CPU per request |',
      '|---|---:|',
      ...r.cpuPerRequest.map((c) => `| ${c.name} | ${c.micros.toFixed(0)} |`),
      '',
    );
  }
  for (const { target, summary } of r.profiles) {
    lines.push(
      `## Where the gateway spends its CPU: ${target}`,
      '',
      `\`paygate serve\` on ${target} under the GET order load, \`node --cpu-prof\`, ${summary.totalSeconds.toFixed(1)} s busy (idle samples left out); self time. \`writev\` is the kernel's share of sending (the HTTP answer; on PostgreSQL also the query), \`wasm\` is PostgreSQL itself inside PGlite.`,
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

export function writeBenchmarksDoc(file: string, report: BenchReport): void {
  writeFileSync(file, renderBenchmarksDoc(report));
}
