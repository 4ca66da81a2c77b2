/**
 * `npm run bench:generate`: full generation time for our spec, then, for GitHub's spec and every real-world spec of
 * test/fixtures/realworld (specs.ts), time and peak memory of @paygate/generators (contract with the type layer +
 * server + client, + webhooks when the spec has them) beside openapi-typescript alone on the same file, in the same
 * run. Each row is measured in a fresh child process (peak RSS from getrusage, peak heap sampled every 20 ms), one
 * after the other. `npm run bench` runs the same measurement through `measureGenerators()`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import type { Target } from '../generators/src/emit/context.js';
import { generate } from '../generators/src/pipeline.js';
import { REALWORLD_SPECS } from '../test/fixtures/realworld/specs.js';

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

/** A third-party spec measured twice: our generators, and openapi-typescript alone. */
interface ComparedSpec {
  key: string;
  label: string;
  openapi: string;
  targets: readonly Target[];
}

const COMPARED: readonly ComparedSpec[] = [
  { key: 'github', label: 'GitHub spec', openapi: GITHUB_SPEC, targets: ['contract', 'server', 'client'] },
  ...REALWORLD_SPECS.map((s) => ({ key: s.name, label: s.label, openapi: s.openapi, targets: s.targets })),
];

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function oursTask(spec: ComparedSpec): () => Promise<string> {
  return async () => {
    const { files, model } = await generate({ rootDir: ROOT, openapi: spec.openapi, asyncapi: null, lint: 'skip', targets: spec.targets, contractImport: 'relative' });
    return `${model.operations.length} operations, ${files.length} files, ${mib(files.reduce((n, f) => n + f.contents.length, 0))}`;
  };
}

function openapiTypescriptTask(spec: ComparedSpec): () => Promise<string> {
  return async () => {
    const ast = await openapiTS(pathToFileURL(path.join(ROOT, spec.openapi)), { alphabetize: true, silent: true });
    return `${mib(astToString(ast).length)} of types`;
  };
}

const tasks: Record<string, () => Promise<string>> = {
  async ours() {
    const { files } = await generate({ rootDir: ROOT, openapi: 'openapi/openapi.yaml', asyncapi: existsSync(path.join(ROOT, 'openapi/asyncapi.yaml')) ? 'openapi/asyncapi.yaml' : null, lintConfig: 'openapi/redocly.yaml' });
    return `${files.length} files, ${(files.reduce((n, f) => n + f.contents.length, 0) / 1024).toFixed(0)} KiB`;
  },
  ...Object.fromEntries(COMPARED.flatMap((spec) => [[`ours:${spec.key}`, oursTask(spec)], [`openapi-typescript:${spec.key}`, openapiTypescriptTask(spec)]])),
};

async function child(name: string): Promise<Measurement> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', name], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as Measurement;
}

/** [label, task] in the order they run: our spec, then each compared spec (ours, then openapi-typescript alone). */
export const GENERATOR_RUNS: readonly (readonly [string, string])[] = [
  ['Paygate spec: full generation (lint + bundle + all emitters)', 'ours'],
  ...COMPARED.flatMap((spec) => [
    [`${spec.label}: @paygate/generators (${spec.targets.join(' + ')})`, `ours:${spec.key}`] as const,
    [`${spec.label}: openapi-typescript alone`, `openapi-typescript:${spec.key}`] as const,
  ]),
];

export interface GeneratorRatio {
  spec: string;
  time: number;
  maxRss: number;
  peakHeap: number;
}

export interface GeneratorBench {
  rows: { label: string; task: string; measurement: Measurement }[];
  /** GitHub spec, ours / openapi-typescript alone. */
  ratio: GeneratorRatio;
  /** Every compared spec (GitHub first), ours / openapi-typescript alone. */
  ratios: GeneratorRatio[];
}

/** Every run, each in a fresh Node process, one at a time (used by `npm run bench` too). */
export async function measureGenerators(progress: (line: string) => void = () => undefined): Promise<GeneratorBench> {
  const rows: GeneratorBench['rows'] = [];
  for (const [label, name] of GENERATOR_RUNS) {
    progress(`${label}...`);
    rows.push({ label, task: name, measurement: await child(name) });
  }
  const byTask = new Map(rows.map((r) => [r.task, r.measurement]));
  const ratios = COMPARED.map((spec): GeneratorRatio => {
    const ours = byTask.get(`ours:${spec.key}`)!;
    const ots = byTask.get(`openapi-typescript:${spec.key}`)!;
    return { spec: spec.label, time: ours.ms / ots.ms, maxRss: ours.maxRssMiB / ots.maxRssMiB, peakHeap: ours.peakHeapMiB / ots.peakHeapMiB };
  });
  return { rows, ratio: ratios[0]!, ratios };
}

async function main(): Promise<void> {
  const childIndex = process.argv.indexOf('--child');
  if (childIndex !== -1) {
    const name = process.argv[childIndex + 1]!;
    const task = tasks[name];
    if (task === undefined) throw new Error(`unknown task ${name}: bench/generate.ts knows ${Object.keys(tasks).join(', ')}`);
    console.log(JSON.stringify(await measure(task)));
    return;
  }
  console.log(`Measuring ${GENERATOR_RUNS.length} runs, each in a fresh Node process, one at a time...`);
  const { rows, ratios } = await measureGenerators((line) => console.log(`  ${line}`));
  const width = Math.max(...rows.map((r) => r.label.length));
  console.log(`\n${'Run'.padEnd(width)} ${'time (s)'.padStart(9)} ${'max RSS (MiB)'.padStart(14)} ${'peak heap (MiB)'.padStart(16)}  output`);
  for (const { label, measurement: m } of rows) {
    console.log(`${label.padEnd(width)} ${(m.ms / 1000).toFixed(2).padStart(9)} ${m.maxRssMiB.toFixed(0).padStart(14)} ${m.peakHeapMiB.toFixed(0).padStart(16)}  ${m.detail}`);
  }
  console.log('\nOurs / openapi-typescript alone, same file, same run:');
  for (const r of ratios) console.log(`  ${r.spec}: time ${r.time.toFixed(2)}x, max RSS ${r.maxRss.toFixed(2)}x, peak heap ${r.peakHeap.toFixed(2)}x`);
}

// Run as a script (`npm run bench:generate`, or a measurement child); importing it (bench/run.ts) runs nothing.
const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
if (invokedDirectly) {
  main().catch((error: unknown) => {
    console.error(`bench/generate.ts failed: ${error instanceof Error ? error.message : String(error)}`);
    console.error('A child that failed prints its own error above; run `npx tsx bench/generate.ts --child <task>` to see it alone.');
    process.exit(1);
  });
}
