/**
 * `npm run bench:generate`: full generation time for our spec, then time and peak memory for GitHub's spec
 * (contract with the type layer + server + client) beside openapi-typescript alone on the same file, in the same run, each measured in
 * a fresh child process (peak RSS from getrusage, peak heap sampled every 20 ms). `npm run bench` runs the same
 * measurement through `measureGenerators()`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate } from '../generators/src/pipeline.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';

export interface Measurement {
  ms: number;
  maxRssMiB: number;
  peakHeapMiB: number;
  detail: string;
}

async function measure(task: () => Promise<string>): Promise<Measurement> {
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const start = performance.now();
  const detail = await task();
  const ms = performance.now() - start;
  clearInterval(timer);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return { ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, peakHeapMiB: peakHeap / 1024 / 1024, detail };
}

const tasks: Record<string, () => Promise<string>> = {
  async ours() {
    const { files } = await generate({ rootDir: ROOT, openapi: 'openapi/openapi.yaml', asyncapi: existsSync(path.join(ROOT, 'openapi/asyncapi.yaml')) ? 'openapi/asyncapi.yaml' : null, lintConfig: 'openapi/redocly.yaml' });
    return `${files.length} files, ${(files.reduce((n, f) => n + f.contents.length, 0) / 1024).toFixed(0)} KiB`;
  },
  async github() {
    const { files, model } = await generate({ rootDir: ROOT, openapi: GITHUB_SPEC, asyncapi: null, lint: 'skip', targets: ['contract', 'server', 'client'] });
    return `${model.operations.length} operations, ${files.length} files, ${(files.reduce((n, f) => n + f.contents.length, 0) / 1024 / 1024).toFixed(1)} MiB`;
  },
  async openapiTypescript() {
    const ast = await openapiTS(pathToFileURL(path.join(ROOT, GITHUB_SPEC)), { alphabetize: true, silent: true });
    return `${(astToString(ast).length / 1024 / 1024).toFixed(1)} MiB of types`;
  },
};

async function child(name: string): Promise<Measurement> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', name], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as Measurement;
}

export const GENERATOR_RUNS = [
  ['Paygate spec: full generation (lint + bundle + all emitters)', 'ours'],
  ['GitHub spec: @paygate/generators (contract + server + client)', 'github'],
  ['GitHub spec: openapi-typescript alone', 'openapiTypescript'],
] as const;

export interface GeneratorBench {
  rows: { label: string; task: string; measurement: Measurement }[];
  /** GitHub spec, ours / openapi-typescript alone. */
  ratio: { time: number; maxRss: number; peakHeap: number };
}

/** The three runs, each in a fresh Node process (used by `npm run bench` too). */
export async function measureGenerators(progress: (line: string) => void = () => undefined): Promise<GeneratorBench> {
  const rows: GeneratorBench['rows'] = [];
  for (const [label, name] of GENERATOR_RUNS) {
    progress(label);
    rows.push({ label, task: name, measurement: await child(name) });
  }
  const ours = rows[1]!.measurement;
  const ots = rows[2]!.measurement;
  return { rows, ratio: { time: ours.ms / ots.ms, maxRss: ours.maxRssMiB / ots.maxRssMiB, peakHeap: ours.peakHeapMiB / ots.peakHeapMiB } };
}

async function main(): Promise<void> {
  const childIndex = process.argv.indexOf('--child');
  if (childIndex !== -1) {
    const name = process.argv[childIndex + 1]!;
    const task = tasks[name];
    if (task === undefined) throw new Error(`unknown task ${name}`);
    console.log(JSON.stringify(await measure(task)));
    return;
  }
  console.log('Measuring (each row in a fresh Node process)...');
  const { rows, ratio } = await measureGenerators();
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`\n${pad('Run', 64)} ${'time (s)'.padStart(9)} ${'max RSS (MiB)'.padStart(14)} ${'peak heap (MiB)'.padStart(16)}  output`);
  for (const { label, measurement: m } of rows) {
    console.log(`${pad(label, 64)} ${(m.ms / 1000).toFixed(2).padStart(9)} ${m.maxRssMiB.toFixed(0).padStart(14)} ${m.peakHeapMiB.toFixed(0).padStart(16)}  ${m.detail}`);
  }
  console.log(
    `\nGitHub, ours / openapi-typescript alone: time ${ratio.time.toFixed(2)}x, max RSS ${ratio.maxRss.toFixed(2)}x, peak heap ${ratio.peakHeap.toFixed(2)}x`,
  );
}

// Run as a script (`npm run bench:generate`, or a measurement child); importing it (bench/run.ts) runs nothing.
const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
if (invokedDirectly) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
