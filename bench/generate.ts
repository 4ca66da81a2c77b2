/**
 * `npm run bench:generate`: full generation of our spec, then, for GitHub's spec and every real-world spec of
 * test/fixtures/realworld (specs.ts), @paygate/generators (contract with the type layer + server + client, + webhooks
 * when the spec has them) beside openapi-typescript alone on the same file, in the same run: CPU time of generation,
 * bytes emitted, and the peak RSS of a strict `tsc --noEmit` of each output (ours compiled with its runtimes' published
 * declarations, D197, in the layout of `paygate generate --out`, as the compile tests do; openapi-typescript's types
 * alone). Needs `npm run build` (the runtimes' dist). Issue 23's goals,
 * for GitHub and Stripe: CPU <= 1.5x, output <= 2x, tsc memory <= 1.5x. Each row is measured in a fresh child process,
 * one after the other. `npm run bench` runs the same measurement through `measureGenerators()`.
 * BENCH_GENERATE_SPECS=github,stripe limits the specs; BENCH_GENERATE_TSC=0 skips the compiles.
 *
 * Issue 31 (D378 regeneration benchmark on GitHub and Stripe specs): for GitHub and Stripe, regeneration after a one-line change as `paygate generate --watch` does it:
 * in a process that already generated the spec once (unmeasured), an optional property is added to one component
 * schema of a copy of the spec and the generation that follows is measured, against openapi-typescript's full run and
 * Paygate's own full run on the same spec in the same bench run. The process keeps one `GenerateCache` across both
 * runs, as watch mode does (D440-D443: the lint and bundle, the type layer by unit, the request validators by what
 * they reach); `regen-nocache:<spec>` is the same regeneration without it (every unit computed again, D378's row).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse as parseYaml } from 'yaml';
import type { Target } from '../generators/src/emit/context.js';
import { generate, GenerateCache } from '../generators/src/pipeline.js';
import { REALWORLD_SPECS } from '../test/fixtures/realworld/specs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';
const run = promisify(execFile);

export interface Measurement {
  ms: number;
  /** CPU time of the child (user + system): the figure compared, wall time is noise on a shared machine. */
  cpuMs: number;
  maxRssMiB: number;
  peakHeapMiB: number;
  /** Bytes (UTF-8) of everything the run emitted. */
  outputBytes: number;
  detail: string;
}

interface TaskResult {
  detail: string;
  outputBytes: number;
}

async function measure(task: () => Promise<TaskResult>): Promise<Measurement> {
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const { detail, outputBytes } = await task();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  clearInterval(timer);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    peakHeapMiB: peakHeap / 1024 / 1024,
    outputBytes,
    detail,
  };
}

/** A third-party spec measured twice: our generators, and openapi-typescript alone. */
interface ComparedSpec {
  key: string;
  label: string;
  openapi: string;
  targets: readonly Target[];
  /** The issue-23 goals apply (GitHub, Stripe). */
  goal: boolean;
}

const COMPARED: readonly ComparedSpec[] = [
  { key: 'github', label: 'GitHub spec', openapi: GITHUB_SPEC, targets: ['contract', 'server', 'client'], goal: true },
  ...REALWORLD_SPECS.map((s) => ({ key: s.name, label: s.label, openapi: s.openapi, targets: s.targets, goal: s.name === 'stripe' })),
];

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Where a child writes what it generated, for the strict compile that follows (BENCH_GENERATE_OUT, set by the parent;
 * none when a task runs alone).
 */
const OUT_DIR = process.env['BENCH_GENERATE_OUT'];

/** A project around generated files the way test/generators/support/compile-generated.ts lays it out. */
async function writeProject(dir: string, files: readonly { path: string; contents: string }[]): Promise<void> {
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f.path)), { recursive: true });
    await writeFile(path.join(dir, f.path), f.contents);
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-generated', private: true, type: 'module' }));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.base.json'),
      // D197: the runtimes as their users compile against them, the published `.d.ts` of each package's dist (no
      // `source` condition: that type-checked the runtimes' implementation too, which no user of the output does)
      compilerOptions: { noEmit: true, types: ['node'], skipLibCheck: true },
      include: ['generated'],
    }),
  );
}

const bytes = (files: readonly { contents: string }[]) => files.reduce((n, f) => n + Buffer.byteLength(f.contents), 0);

function oursTask(spec: ComparedSpec): () => Promise<TaskResult> {
  return async () => {
    // The layout of `paygate generate --out` (runtimes by package name), as the compile tests check it.
    const { files, model } = await generate({
      rootDir: ROOT,
      openapi: spec.openapi,
      asyncapi: null,
      // As `paygate generate` runs by default: Redocly's `minimal` lint, reported (style errors never refuse a
      // third-party spec, D116). openapi-typescript's own default lints with the same `minimal` set, so both sides
      // pay for a lint; skipping ours would flatter the CPU ratio.
      lint: 'report',
      targets: spec.targets,
      out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
      contractImport: 'relative',
      runtimeImport: 'package',
    });
    const outputBytes = bytes(files);
    if (OUT_DIR !== undefined) await writeProject(OUT_DIR, files);
    return { detail: `${model.operations.length} operations, ${files.length} files, ${mib(outputBytes)}`, outputBytes };
  };
}

function openapiTypescriptTask(spec: ComparedSpec): () => Promise<TaskResult> {
  return async () => {
    const ast = await openapiTS(pathToFileURL(path.join(ROOT, spec.openapi)), { alphabetize: true, silent: true });
    const files = [{ path: 'generated/types.ts', contents: astToString(ast) }];
    if (OUT_DIR !== undefined) await writeProject(OUT_DIR, files);
    return { detail: `${mib(bytes(files))} of types`, outputBytes: bytes(files) };
  };
}

/** The specs whose one-line-change regeneration is measured (issue 31). */
const REGENERATED = ['github', 'stripe'];

/**
 * The spec as JSON in a scratch folder, generated once (as watch mode's first run, unmeasured), then saved again with
 * one optional property added to the first component schema (by name) that has properties: the measured task is the
 * generation that follows, in the same process.
 */
function regenerationTask(spec: ComparedSpec, cached: boolean): { prepare: () => Promise<void>; run: () => Promise<TaskResult> } {
  let file = '';
  const cache = cached ? new GenerateCache() : undefined;
  const options = () =>
    ({
      rootDir: path.dirname(file),
      openapi: path.basename(file),
      asyncapi: null,
      lint: 'report',
      targets: spec.targets,
      out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
      contractImport: 'relative',
      runtimeImport: 'package',
      ...(cache === undefined ? {} : { cache }),
    }) as const;
  return {
    async prepare() {
      const text = await readFile(path.join(ROOT, spec.openapi), 'utf8');
      const document = (spec.openapi.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as {
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      };
      const dir = await mkdtemp(path.join(tmpdir(), `paygate-bench-regen-${spec.key}-`));
      file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document, null, 2));
      await generate(options());
      const [name] = Object.keys(document.components.schemas)
        .filter((n) => document.components.schemas[n]!.properties !== undefined)
        .sort();
      document.components.schemas[name!]!.properties!['bench_note'] = { type: 'string', description: 'Added by the bench.' };
      await writeFile(file, JSON.stringify(document, null, 2));
    },
    async run() {
      const { files, model } = await generate(options());
      await rm(path.dirname(file), { recursive: true, force: true });
      return {
        detail: `${model.operations.length} operations, ${files.length} files, after one optional property added`,
        outputBytes: bytes(files),
      };
    },
  };
}

const regenerations = Object.fromEntries(
  COMPARED.filter((spec) => REGENERATED.includes(spec.key)).flatMap((spec) => [
    [`regen:${spec.key}`, regenerationTask(spec, true)],
    [`regen-nocache:${spec.key}`, regenerationTask(spec, false)],
  ]),
);

const tasks: Record<string, () => Promise<TaskResult>> = {
  ...Object.fromEntries(Object.entries(regenerations).map(([name, task]) => [name, task.run])),
  async ours() {
    const { files } = await generate({
      rootDir: ROOT,
      openapi: 'openapi/openapi.yaml',
      asyncapi: existsSync(path.join(ROOT, 'openapi/asyncapi.yaml')) ? 'openapi/asyncapi.yaml' : null,
      lintConfig: 'openapi/redocly.yaml',
    });
    return { detail: `${files.length} files, ${(bytes(files) / 1024).toFixed(0)} KiB`, outputBytes: bytes(files) };
  },
  ...Object.fromEntries(
    COMPARED.flatMap((spec) => [
      [`ours:${spec.key}`, oursTask(spec)],
      [`openapi-typescript:${spec.key}`, openapiTypescriptTask(spec)],
    ]),
  ),
};

async function child(name: string, outDir?: string): Promise<Measurement> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', name], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...(outDir === undefined ? {} : { BENCH_GENERATE_OUT: outDir }) },
  });
  const line = stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as Measurement;
}

export interface TscMeasurement {
  /** Peak RSS of the tsc process. */
  maxRssMB: number;
  cpuMs: number;
  /** 0: compiled without a diagnostic. */
  exitCode: number;
}

/**
 * `tsc -p dir` (strict: tsconfig.base.json) in a child whose exit handler prints its peak RSS and CPU: tsc calls
 * process.exit, so the handler sees the whole compile.
 */
async function tscPeak(dir: string): Promise<TscMeasurement> {
  for (const pkg of ['contract', 'server', 'client', 'webhooks']) {
    if (!existsSync(path.join(ROOT, 'packages', pkg, 'dist/index.d.ts'))) {
      throw new Error(
        `packages/${pkg}/dist/index.d.ts is missing: run \`npm run build\` first (the compile uses the runtimes' published declarations, D197)`,
      );
    }
  }
  const probe =
    "process.on('exit', (code) => { const u = process.resourceUsage(); require('node:fs').writeSync(1, '\\nTSC_PEAK ' + JSON.stringify({ maxRssKiB: u.maxRSS, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, code }) + '\\n'); });" +
    'require(process.argv[1]);';
  const tsc = path.join(ROOT, 'node_modules/typescript/lib/tsc.js');
  const { stdout } = await run(process.execPath, ['--max-old-space-size=8192', '-e', probe, tsc, '-p', path.join(dir, 'tsconfig.json')], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const line = stdout.split('\n').find((l) => l.startsWith('TSC_PEAK '));
  if (line === undefined) throw new Error(`tsc printed no peak: ${stdout.slice(0, 2000)}`);
  const { maxRssKiB, cpuMs, code } = JSON.parse(line.slice('TSC_PEAK '.length)) as { maxRssKiB: number; cpuMs: number; code: number };
  return { maxRssMB: (maxRssKiB * 1024) / 1e6, cpuMs, exitCode: code };
}

/** [label, task] in the order they run: our spec, then each compared spec (ours, then openapi-typescript alone). */
export const GENERATOR_RUNS: readonly (readonly [string, string])[] = [
  ['Paygate spec: full generation (lint + bundle + all emitters)', 'ours'],
  ...COMPARED.flatMap((spec) => [
    [`${spec.label}: @paygate/generators (${spec.targets.join(' + ')})`, `ours:${spec.key}`] as const,
    [`${spec.label}: openapi-typescript alone`, `openapi-typescript:${spec.key}`] as const,
    ...(REGENERATED.includes(spec.key)
      ? [
          [`${spec.label}: regeneration after a one-line change (as generate --watch)`, `regen:${spec.key}`] as const,
          [`${spec.label}: the same regeneration without the cache`, `regen-nocache:${spec.key}`] as const,
        ]
      : []),
  ]),
];

export interface GeneratorRatio {
  spec: string;
  /** Wall time, ours / openapi-typescript (noise on a loaded machine: `cpu` is the compared figure). */
  time: number;
  /** CPU time of generation, ours / openapi-typescript. */
  cpu: number;
  /** Bytes emitted, ours (every target) / openapi-typescript's types. */
  size: number;
  /** Peak RSS of a strict `tsc --noEmit` of our output / of openapi-typescript's types alone (null: not compiled). */
  tscMemory: number | null;
  maxRss: number;
  peakHeap: number;
  /** The issue-23 goals apply (GitHub, Stripe): CPU <= 1.5x, size <= 2x, tsc memory <= 1.5x. */
  goal: boolean;
  ours: { cpuS: number; outputMiB: number; tscMB: number | null; tscExit: number | null };
  openapiTypescript: { cpuS: number; outputMiB: number; tscMB: number | null; tscExit: number | null };
}

export const GENERATION_GOALS = { cpu: 1.5, size: 2, tscMemory: 1.5 } as const;

/** Issue 31: regeneration after a one-line change, against the full runs of the same spec in the same bench run. */
export interface RegenerationRatio {
  spec: string;
  cpuS: number;
  /** The same regeneration without the cache (null: not measured). */
  uncachedCpuS: number | null;
  /** Regeneration CPU / openapi-typescript's full run (goal <= 0.3x). */
  vsOpenapiTypescript: number;
  /** Regeneration CPU / Paygate's own full run. */
  vsFull: number;
}

export const REGENERATION_GOAL = 0.3;

export interface GeneratorBench {
  /** Issue 31's rows (GitHub, Stripe). */
  regenerations: RegenerationRatio[];
  rows: { label: string; task: string; measurement: Measurement; tsc?: TscMeasurement }[];
  /** GitHub spec, ours / openapi-typescript alone. */
  ratio: GeneratorRatio;
  /** Every compared spec (GitHub first), ours / openapi-typescript alone. */
  ratios: GeneratorRatio[];
}

/**
 * Every run, each in a fresh Node process, one at a time (used by `npm run bench` too); with `compile` (default), each
 * compared run's output is then type-checked by a strict `tsc` whose peak RSS is the memory figure. BENCH_GENERATE_SPECS
 * (comma list of keys: github, stripe, openai, ...) limits the compared specs.
 */
export async function measureGenerators(
  progress: (line: string) => void = () => undefined,
  options: { compile?: boolean } = {},
): Promise<GeneratorBench> {
  const compile = options.compile ?? process.env['BENCH_GENERATE_TSC'] !== '0';
  const only = process.env['BENCH_GENERATE_SPECS']?.split(',').filter(Boolean);
  const runs = GENERATOR_RUNS.filter(([, name]) => only === undefined || only.includes(name.split(':')[1] ?? ''));
  const rows: GeneratorBench['rows'] = [];
  const scratch = await mkdtemp(path.join(tmpdir(), 'paygate-bench-generate-'));
  try {
    for (const [label, name] of runs) {
      progress(`${label}...`);
      const compared = name.includes(':') && !name.startsWith('regen') && compile;
      const dir = compared ? path.join(scratch, name.replace(/[^a-z0-9-]/gi, '_')) : undefined;
      const measurement = await child(name, dir);
      let tsc: TscMeasurement | undefined;
      if (dir !== undefined) {
        progress(`  strict tsc of its output...`);
        tsc = await tscPeak(dir);
        await rm(dir, { recursive: true, force: true });
      }
      rows.push({ label, task: name, measurement, ...(tsc === undefined ? {} : { tsc }) });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const byTask = new Map(rows.map((r) => [r.task, r]));
  const ratios = COMPARED.filter((spec) => byTask.has(`ours:${spec.key}`)).map((spec): GeneratorRatio => {
    const ours = byTask.get(`ours:${spec.key}`)!;
    const ots = byTask.get(`openapi-typescript:${spec.key}`)!;
    const side = (r: GeneratorBench['rows'][number]) => ({
      cpuS: r.measurement.cpuMs / 1000,
      outputMiB: r.measurement.outputBytes / 1024 / 1024,
      tscMB: r.tsc?.maxRssMB ?? null,
      tscExit: r.tsc?.exitCode ?? null,
    });
    return {
      spec: spec.label,
      time: ours.measurement.ms / ots.measurement.ms,
      cpu: ours.measurement.cpuMs / ots.measurement.cpuMs,
      size: ours.measurement.outputBytes / ots.measurement.outputBytes,
      tscMemory: ours.tsc !== undefined && ots.tsc !== undefined ? ours.tsc.maxRssMB / ots.tsc.maxRssMB : null,
      maxRss: ours.measurement.maxRssMiB / ots.measurement.maxRssMiB,
      peakHeap: ours.measurement.peakHeapMiB / ots.measurement.peakHeapMiB,
      goal: spec.goal,
      ours: side(ours),
      openapiTypescript: side(ots),
    };
  });
  const regenerationRows = COMPARED.filter((spec) => byTask.has(`regen:${spec.key}`) && byTask.has(`ours:${spec.key}`)).map(
    (spec): RegenerationRatio => {
      const regen = byTask.get(`regen:${spec.key}`)!.measurement.cpuMs;
      const uncached = byTask.get(`regen-nocache:${spec.key}`)?.measurement.cpuMs;
      return {
        spec: spec.label,
        cpuS: regen / 1000,
        uncachedCpuS: uncached === undefined ? null : uncached / 1000,
        vsOpenapiTypescript: regen / byTask.get(`openapi-typescript:${spec.key}`)!.measurement.cpuMs,
        vsFull: regen / byTask.get(`ours:${spec.key}`)!.measurement.cpuMs,
      };
    },
  );
  return { rows, ratio: ratios[0]!, ratios, regenerations: regenerationRows };
}

/** One line per regenerated spec (issue 31). */
export function describeRegeneration(r: RegenerationRatio): string {
  return `${r.spec}: regeneration after a one-line change ${r.cpuS.toFixed(2)} CPU-s = ${r.vsOpenapiTypescript.toFixed(2)}x openapi-typescript's full run (goal <= ${REGENERATION_GOAL}x: ${r.vsOpenapiTypescript <= REGENERATION_GOAL ? 'MET' : 'NOT met'}), ${r.vsFull.toFixed(2)}x Paygate's full run${r.uncachedCpuS === null ? '' : `; without the cache ${r.uncachedCpuS.toFixed(2)} CPU-s`}`;
}

/** One line per compared spec: the three goal ratios and the figures behind them. */
export function describeRatio(r: GeneratorRatio): string {
  const tsc =
    r.tscMemory === null
      ? 'tsc not run'
      : `tsc memory ${r.tscMemory.toFixed(2)}x (${r.ours.tscMB!.toFixed(0)} vs ${r.openapiTypescript.tscMB!.toFixed(0)} MB${r.ours.tscExit === 0 ? '' : `, our output did NOT compile (exit ${r.ours.tscExit})`})`;
  return `CPU ${r.cpu.toFixed(2)}x (${r.ours.cpuS.toFixed(2)} vs ${r.openapiTypescript.cpuS.toFixed(2)} s), output ${r.size.toFixed(2)}x (${r.ours.outputMiB.toFixed(1)} vs ${r.openapiTypescript.outputMiB.toFixed(1)} MiB), ${tsc}`;
}

/** Whether the goals hold for one spec (null: tsc not measured). */
export function generationGoalMet(r: GeneratorRatio): boolean | null {
  const cpuAndSize = r.cpu <= GENERATION_GOALS.cpu && r.size <= GENERATION_GOALS.size;
  if (r.tscMemory === null) return cpuAndSize ? null : false;
  return cpuAndSize && r.tscMemory <= GENERATION_GOALS.tscMemory && r.ours.tscExit === 0;
}

async function main(): Promise<void> {
  const childIndex = process.argv.indexOf('--child');
  if (childIndex !== -1) {
    const name = process.argv[childIndex + 1]!;
    const task = tasks[name];
    if (task === undefined) throw new Error(`unknown task ${name}: bench/generate.ts knows ${Object.keys(tasks).join(', ')}`);
    // a regeneration is measured after its first, unmeasured generation in the same process (watch mode's state)
    await regenerations[name]?.prepare();
    console.log(JSON.stringify(await measure(task)));
    return;
  }
  console.log(`Measuring up to ${GENERATOR_RUNS.length} runs, each in a fresh Node process, one at a time...`);
  const { rows, ratios, regenerations: regenerated } = await measureGenerators((line) => console.log(`  ${line}`));
  const width = Math.max(...rows.map((r) => r.label.length));
  console.log(
    `\n${'Run'.padEnd(width)} ${'CPU (s)'.padStart(8)} ${'wall (s)'.padStart(9)} ${'max RSS (MiB)'.padStart(14)} ${'tsc peak (MB)'.padStart(14)}  output`,
  );
  for (const { label, measurement: m, tsc } of rows) {
    console.log(
      `${label.padEnd(width)} ${(m.cpuMs / 1000).toFixed(2).padStart(8)} ${(m.ms / 1000).toFixed(2).padStart(9)} ${m.maxRssMiB.toFixed(0).padStart(14)} ${(tsc === undefined ? '-' : tsc.maxRssMB.toFixed(0)).padStart(14)}  ${m.detail}`,
    );
  }
  console.log('\nOurs / openapi-typescript alone, same file, same run:');
  for (const r of ratios) {
    const met = generationGoalMet(r);
    console.log(
      `  ${r.spec}: ${describeRatio(r)}${r.goal ? ` -> goal (CPU <= ${GENERATION_GOALS.cpu}x, output <= ${GENERATION_GOALS.size}x, tsc <= ${GENERATION_GOALS.tscMemory}x) ${met === null ? 'not measured' : met ? 'MET' : 'NOT met'}` : ''}`,
    );
  }
  if (regenerated.length > 0) console.log('\nRegeneration after a one-line change (issue 31), same run:');
  for (const r of regenerated) console.log(`  ${describeRegeneration(r)}`);
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
