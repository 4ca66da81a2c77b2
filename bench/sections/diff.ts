/**
 * Section `diff` of `npm run bench` (BENCH_ONLY=diff runs it alone): the breaking-change gate on real history, each
 * pair in a fresh Node process: GitHub's REST spec 22.0.0 -> 23.0.x (goal: under 30 s and 500 MB, issue 21) and
 * Stripe's spec3.json over 25 days (test/fixtures/diff/realworld). A run is what `paygate diff --gate` does after
 * start-up: read both documents with the diff loader, compare, render the Markdown report, evaluate the gate. Wall time
 * is measured inside the child from the first read to the verdict; peak RSS is the child's (getrusage).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GITHUB_TARGET = { seconds: 30, megabytes: 500 };

interface DiffRun {
  key: string;
  label: string;
  from: string;
  to: string;
}

const RUNS: readonly DiffRun[] = [
  {
    key: 'github',
    label: 'GitHub REST 22.0.0 -> 23.0.x',
    from: 'node_modules/octokit-openapi-22/generated/api.github.com.json',
    to: 'node_modules/@octokit/openapi/generated/api.github.com.json',
  },
  {
    key: 'stripe',
    label: 'Stripe spec3.json, 25 days (ba660069 -> e0123a38)',
    from: 'test/fixtures/diff/realworld/stripe-spec3-ba660069.json.gz',
    to: 'test/fixtures/diff/realworld/stripe-spec3-e0123a38.json.gz',
  },
];

export interface DiffMeasurement {
  ms: number;
  maxRssMiB: number;
  entries: number;
  breaking: number;
  markdownBytes: number;
}

export interface DiffRow {
  section: 'diff';
  name: string;
  ms: number;
  maxRssMiB: number;
  note: string;
  [k: string]: unknown;
}

/** In the child: one pair through the gate. Gzipped fixtures are unpacked to a temporary file first (not timed). */
async function measure(run: DiffRun): Promise<DiffMeasurement> {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-diff-'));
  try {
    const plain = (file: string, name: string) => {
      if (!file.endsWith('.gz')) return file;
      const out = path.join(temp, name);
      writeFileSync(out, gunzipSync(readFileSync(path.join(ROOT, file))));
      return out;
    };
    const from = plain(run.from, 'from.json');
    const to = plain(run.to, 'to.json');
    const { loadSnapshotFromFile } = await import('../../generators/src/diff/load.js');
    const { compareContracts } = await import('../../generators/src/diff/compare.js');
    const { formatReport } = await import('../../generators/src/diff/report.js');
    const { evaluateGate } = await import('../../generators/src/diff/gate.js');
    const start = performance.now();
    const before = await loadSnapshotFromFile(from, ROOT, run.from);
    const after = await loadSnapshotFromFile(to, ROOT, run.to);
    const changes = compareContracts(before, after);
    const markdown = formatReport({ from: run.from, to: run.to, changes }, 'markdown');
    const gate = evaluateGate({ releasedVersion: '1.0.0', currentVersion: '1.1.0', changes, allow: { entries: [], invalid: [] } });
    const ms = performance.now() - start;
    return {
      ms,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      entries: changes.length,
      breaking: gate.blocking.length,
      markdownBytes: markdown.length,
    };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

async function child(key: string): Promise<DiffMeasurement> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', key], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as DiffMeasurement;
}

/** Every pair, one at a time, each in a fresh process. */
export async function runDiffSection(log: (line: string) => void): Promise<DiffRow[]> {
  log('8. Breaking-change gate on real spec history (bench/sections/diff.ts, each pair in a fresh process)');
  const rows: DiffRow[] = [];
  for (const run of RUNS) {
    const m = await child(run.key);
    const note = `${m.entries} entries, ${m.breaking} breaking, Markdown report ${(m.markdownBytes / 1024).toFixed(1)} KiB`;
    log(`  ${run.label}: ${(m.ms / 1000).toFixed(2)} s, peak RSS ${m.maxRssMiB.toFixed(0)} MiB; ${note}`);
    rows.push({ section: 'diff', name: run.label, ms: m.ms, maxRssMiB: m.maxRssMiB, note, key: run.key });
  }
  return rows;
}

/** The goal of issue 21 for the GitHub pair. */
export function diffBudgets(
  rows: readonly { section: string; [k: string]: unknown }[],
): { name: string; target: string; value: string; met: boolean }[] {
  const github = rows.find((r) => r.section === 'diff' && r['key'] === 'github');
  if (!github) return [];
  const seconds = (github['ms'] as number) / 1000;
  const megabytes = ((github['maxRssMiB'] as number) * 1024 * 1024) / 1e6;
  return [
    {
      name: 'Breaking-change gate, GitHub 22.0.0 -> 23.0.x (wall time, peak RSS)',
      target: `< ${GITHUB_TARGET.seconds} s, < ${GITHUB_TARGET.megabytes} MB`,
      value: `${seconds.toFixed(2)} s, ${megabytes.toFixed(0)} MB`,
      met: seconds < GITHUB_TARGET.seconds && megabytes < GITHUB_TARGET.megabytes,
    },
  ];
}

/** A row of the results table (the columns of bench/run.ts). */
export function diffTableRow(r: { name: string; [k: string]: unknown }): string[] {
  return [
    'diff',
    r.name,
    '',
    '',
    '',
    (r['maxRssMiB'] as number).toFixed(0),
    '',
    `${((r['ms'] as number) / 1000).toFixed(2)} s, ${String(r['note'] ?? '')}`,
  ];
}

const childAt = process.argv.indexOf('--child');
if (childAt !== -1) {
  const run = RUNS.find((r) => r.key === process.argv[childAt + 1]);
  if (!run) throw new Error(`unknown pair ${process.argv[childAt + 1]}: bench/sections/diff.ts knows ${RUNS.map((r) => r.key).join(', ')}`);
  console.log(JSON.stringify(await measure(run)));
}
