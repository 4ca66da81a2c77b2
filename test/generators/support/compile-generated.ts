/**
 * The one harness that proves generated code compiles outside this repo's layout: generate a spec into a throwaway
 * directory, put the hand-written runtimes generated code imports beside it, and type-check the lot with `tsc
 * --noEmit` under the repo's strict base tsconfig. Used by the GitHub spec test, the real-world spec tests and the
 * construct fixtures, so how generated code finds its runtimes (today: relative paths to copies; tomorrow perhaps
 * package names) changes in this file only.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFiles } from '../../../generators/src/cli/generate.js';
import type { Target } from '../../../generators/src/emit/context.js';
import { generate, type GenerateResult } from '../../../generators/src/pipeline.js';
import { ROOT } from '../fixtures.js';

const run = promisify(execFile);

export interface CompileOptions {
  /** Repo-relative OpenAPI document. */
  openapi: string;
  asyncapi?: string | null;
  targets: readonly Target[];
  /** Prefix of the temp directory's name. */
  label: string;
  /** Heap for tsc (large specs need more than Node's default). */
  maxOldSpaceMiB?: number;
}

export interface CompileOutcome {
  result: GenerateResult;
  /** tsc's exit code (0: compiled) and its first 30 lines of diagnostics ('' when none). */
  tscCode: number;
  diagnostics: string;
  generateMs: number;
  tscMs: number;
}

/** Runtime sources generated code imports, per target (tests left out). */
const RUNTIMES: Record<Exclude<Target, 'docs'>, string[]> = {
  contract: ['packages/contract/src/types.ts'],
  server: ['packages/server/src/runtime'],
  client: ['packages/client/src/runtime'],
  webhooks: ['packages/webhooks/src/event-validation.ts'],
};

/** Copies the runtimes the targets import into `dir`. */
async function provideRuntimes(dir: string, targets: readonly Target[]): Promise<void> {
  const wanted = new Set<string>(RUNTIMES.contract);
  for (const t of targets) if (t !== 'docs') for (const p of RUNTIMES[t]) wanted.add(p);
  const keep = (src: string) => !src.endsWith('.test.ts');
  for (const rel of wanted) await cp(path.join(ROOT, rel), path.join(dir, rel), { recursive: true, filter: keep });
}

/** Generates `options.openapi` into a temp dir beside the runtimes and runs `tsc --noEmit` on it; removes the dir. */
export async function generateAndCompile(options: CompileOptions): Promise<CompileOutcome> {
  const dir = await mkdtemp(path.join(tmpdir(), `paygate-${options.label}-`));
  try {
    const generateStart = performance.now();
    // The contract is imported by relative path: '@paygate/contract' would resolve to this repo's own contract.
    const result = await generate({
      rootDir: ROOT,
      openapi: options.openapi,
      asyncapi: options.asyncapi ?? null,
      lint: 'skip',
      targets: options.targets,
      contractImport: 'relative',
    });
    const generateMs = performance.now() - generateStart;
    await writeFiles(dir, result.files);
    await provideRuntimes(dir, options.targets);
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: `${options.label}-proof`, private: true, type: 'module' }));
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.base.json'),
        compilerOptions: { noEmit: true, types: ['node'], skipLibCheck: true },
        include: ['packages/*/src'],
        exclude: ['**/*.test.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const tscStart = performance.now();
    const outcome = await run(process.execPath, [`--max-old-space-size=${options.maxOldSpaceMiB ?? 4096}`, tsc, '-p', path.join(dir, 'tsconfig.json')], {
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof error.code === 'number' ? error.code : 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    return {
      result,
      tscCode: outcome.code,
      diagnostics: outcome.output.split('\n').slice(0, 30).join('\n').trim(),
      generateMs,
      tscMs: performance.now() - tscStart,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
