/**
 * The one harness that proves generated code compiles outside this repo's layout: generate a spec into a throwaway
 * directory the way `paygate generate --out` does for a project of its own (the runtimes imported by package name,
 * `@paygate/server/runtime/...` and the like; the generated contract by relative path) and type-check the lot with
 * `tsc --noEmit` under the repo's strict base tsconfig, the runtime packages resolved through their export maps
 * (the "source" condition: no build needed). Used by the GitHub spec test, the real-world spec tests and the
 * construct fixtures, so how generated code finds its runtimes changes in this file only.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFiles } from '../../../generators/src/cli/generate.js';
import type { Target } from '../../../generators/src/emit/context.js';
import type { LintMode } from '../../../generators/src/parse/openapi.js';
import { generate, type GenerateResult, type PaygatePlugin } from '../../../generators/src/pipeline.js';
import { ROOT } from '../fixtures.js';

const run = promisify(execFile);

export interface CompileOptions {
  /** Repo-relative OpenAPI document. */
  openapi: string;
  asyncapi?: string | null;
  targets: readonly Target[];
  /** Prefix of the temp directory's name. */
  label: string;
  /** Lint mode (default 'skip'; 'strict' is what `paygate generate` does without flags). */
  lint?: LintMode;
  /** Heap for tsc (large specs need more than Node's default). */
  maxOldSpaceMiB?: number;
  /** Plugins run after Paygate's emitters (`definePlugin`; their files land under `generated/`). */
  plugins?: readonly PaygatePlugin[];
  /** More files for tsc, by path in the temp dir (`generated/x.ts`): type-level tests of the generated code. */
  extraFiles?: Readonly<Record<string, string>>;
  /**
   * Runs after tsc, before the directory is removed, with the directory's path, tsc's outcome and the generation
   * result: a test that runs the generated code imports it from `<dir>/generated/...` (the directory lives until the
   * promise settles).
   */
  use?: (dir: string, outcome: { code: number; diagnostics: string; result: GenerateResult }) => Promise<void>;
}

export interface CompileOutcome {
  result: GenerateResult;
  /** tsc's exit code (0: compiled) and its first 30 lines of diagnostics ('' when none). */
  tscCode: number;
  diagnostics: string;
  generateMs: number;
  tscMs: number;
}

/**
 * Generates `options.openapi` into `dir` as `paygate generate --out` does for a project of its own: the contract
 * imported by relative path ('@paygate/contract' is this repo's own contract), the runtimes by package name through
 * their `./runtime/*.js` and `./types.js` exports. A `dir` outside the repository gets a `node_modules` link to the
 * repository's; one inside it (so that vitest transforms the generated TypeScript to serve it) finds them above.
 */
export async function generateProject(options: CompileOptions & { dir: string }): Promise<{ result: GenerateResult; generateMs: number }> {
  const generateStart = performance.now();
  const result = await generate({
    rootDir: ROOT,
    openapi: options.openapi,
    asyncapi: options.asyncapi ?? null,
    lint: options.lint ?? 'skip',
    targets: options.targets,
    out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
    contractImport: 'relative',
    runtimeImport: 'package',
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
  });
  const generateMs = performance.now() - generateStart;
  await writeFiles(options.dir, [
    ...result.files,
    ...Object.entries(options.extraFiles ?? {}).map(([file, contents]) => ({ path: file, contents })),
  ]);
  if (path.relative(ROOT, options.dir).startsWith('..'))
    await symlink(path.join(ROOT, 'node_modules'), path.join(options.dir, 'node_modules'), 'dir');
  await writeFile(
    path.join(options.dir, 'package.json'),
    JSON.stringify({ name: `${options.label}-proof`, private: true, type: 'module' }),
  );
  return { result, generateMs };
}

/** `tsc --noEmit` over `include` of a generated project under the repo's strict base tsconfig. */
export async function compileProject(
  dir: string,
  include: readonly string[],
  maxOldSpaceMiB = 4096,
): Promise<{ tscCode: number; diagnostics: string; tscMs: number }> {
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.base.json'),
      compilerOptions: { noEmit: true, types: ['node'], skipLibCheck: true, customConditions: ['source'] },
      include,
      exclude: ['**/*.test.ts'],
    }),
  );
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const tscStart = performance.now();
  const outcome = await run(process.execPath, [`--max-old-space-size=${maxOldSpaceMiB}`, tsc, '-p', path.join(dir, 'tsconfig.json')], {
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    () => ({ code: 0, output: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  return {
    tscCode: outcome.code,
    diagnostics: outcome.output.split('\n').slice(0, 30).join('\n').trim(),
    tscMs: performance.now() - tscStart,
  };
}

/** Generates `options.openapi` into a temp dir and runs `tsc --noEmit` on it; removes the dir. */
export async function generateAndCompile(options: CompileOptions): Promise<CompileOutcome> {
  const dir = await mkdtemp(path.join(tmpdir(), `paygate-${options.label}-`));
  try {
    const { result, generateMs } = await generateProject({ ...options, dir });
    const compiled = await compileProject(dir, ['generated'], options.maxOldSpaceMiB);
    await options.use?.(dir, { code: compiled.tscCode, diagnostics: compiled.diagnostics, result });
    return { result, generateMs, ...compiled };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
