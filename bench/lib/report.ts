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
  profile: ProfileSummary | undefined;
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
  if (r.profile) {
    lines.push(
      '## Where the gateway spends its CPU',
      '',
      `\`paygate serve\` on PostgreSQL under the GET order load, \`node --cpu-prof\`, ${r.profile.totalSeconds.toFixed(1)} s busy (idle samples left out); self time. \`writev\` is the kernel's share of sending: the HTTP answer and the query to PostgreSQL, one each per request.`,
      '',
      '| By package / file | Share |',
      '|---|---:|',
      ...r.profile.byPackage.map((p) => `| ${p.name.replace(/\|/g, '\\|')} | ${(p.share * 100).toFixed(1)}% |`),
      '',
      '| By function | Share |',
      '|---|---:|',
      ...r.profile.byFunction.map((p) => `| \`${p.name.replace(/\|/g, '\\|')}\` | ${(p.share * 100).toFixed(1)}% |`),
      '',
    );
  }
  return `${lines.join('\n')}`;
}

export function writeBenchmarksDoc(file: string, report: BenchReport): void {
  writeFileSync(file, renderBenchmarksDoc(report));
}
