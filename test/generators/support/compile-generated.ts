/**
 * The one harness that proves generated code compiles outside this repo's layout: generate a spec into a throwaway
 * directory the way `paygate generate --out` does for a project of its own (the runtimes imported by package name,
 * `@paygate/server/runtime/...` and the like; the generated contract by relative path) and type-check the lot with
 * `tsc --noEmit` under the repo's strict base tsconfig, the runtime packages resolved through their export maps to
 * their built declarations, as a project that installed them from npm gets them (`npm run build` once per run first,
 * test/support/build.ts). Why not their sources: each compile then type-checked the runtimes' own source files again
 * (a third of a small spec's compile; docs/benchmarks.md, "Test CPU per file"), which the repository's type check
 * already does once. Used by the GitHub spec test, the real-world spec tests and the construct fixtures, so how
 * generated code finds its runtimes changes in this file only.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFiles } from '../../../generators/src/cli/generate.js';
import type { Target } from '../../../generators/src/emit/context.js';
import type { LintMode } from '../../../generators/src/parse/openapi.js';
import { generate, type GenerateResult, type PaygatePlugin } from '../../../generators/src/pipeline.js';
import { buildOnce } from '../../support/build.js';
import { ROOT } from '../fixtures.js';
import { withLock } from './dir-lock.js';

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
  /**
   * The name of a project directory that other files' compiles of the same spec share (D465 one OpenAI project
   * directory for the real-world and events tests): tsc checks again only what differs from the last compile there.
   */
  shareDir?: string;
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
    await symlink(path.join(ROOT, 'node_modules'), path.join(options.dir, 'node_modules'), 'dir').catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  await writeFile(
    path.join(options.dir, 'package.json'),
    JSON.stringify({ name: `${options.label}-proof`, private: true, type: 'module' }),
  );
  return { result, generateMs };
}

/**
 * `tsc --noEmit` over `include` of a generated project under the repo's strict base tsconfig. `incremental`: tsc keeps
 * its build info (the files' content hashes and their diagnostics) in the directory and, on the next compile there,
 * checks again only the files whose content, or whose dependencies' content, changed (D464 generated projects
 * compiled incrementally in a directory per project).
 */
export async function compileProject(
  dir: string,
  include: readonly string[],
  maxOldSpaceMiB = 4096,
  incremental = false,
): Promise<{ tscCode: number; diagnostics: string; tscMs: number }> {
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.base.json'),
      compilerOptions: {
        noEmit: true,
        types: ['node'],
        skipLibCheck: true,
        ...(incremental ? { incremental: true, tsBuildInfoFile: path.join(dir, 'tsconfig.tsbuildinfo') } : {}),
      },
      include,
      exclude: ['**/*.test.ts'],
    }),
  );
  // the runtimes' declarations (dist/) current before tsc reads them
  await buildOnce();
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

/**
 * Generates `options.openapi` into the project's directory and runs `tsc --noEmit` on it, incrementally (D464
 * generated projects compiled incrementally in a directory per project): the directory is the same for the same
 * project in every run of this checkout (under the system temp dir, named by the checkout and by what the project is),
 * its `generated/` is removed and written afresh each time, and tsc's build info is kept beside it, so a spec whose
 * generated code and runtimes did not change since the last compile costs tsc a parse, not a check. tsc reports the
 * same diagnostics either way (unchanged files' are kept in the build info). One compile per directory at a time (a
 * lock), so files, or runs, that compile the same project share it one after the other.
 */
export async function generateAndCompile(options: CompileOptions): Promise<CompileOutcome> {
  const dir = projectDir(options);
  await mkdir(dir, { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    await rm(path.join(dir, 'generated'), { recursive: true, force: true });
    const { result, generateMs } = await generateProject({ ...options, dir });
    const compiled = await compileProject(dir, ['generated'], options.maxOldSpaceMiB, true);
    await options.use?.(dir, { code: compiled.tscCode, diagnostics: compiled.diagnostics, result });
    return { result, generateMs, ...compiled };
  });
}

/**
 * The directory of a generated project: by checkout and by `shareDir`, or by what the project is (label, targets, lint
 * mode, plugins by name, the extra files' paths, and the spec's path when it is the repository's; a spec written to a
 * fresh temp file each run is known by its label). Contents that differ from the last run's in the same directory are
 * what tsc's build info is for.
 */
function projectDir(options: CompileOptions): string {
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 10);
  if (options.shareDir !== undefined) return path.join(tmpdir(), `paygate-compile-${checkout}`, `shared-${options.shareDir}`);
  const what = JSON.stringify({
    label: options.label,
    openapi: path.isAbsolute(options.openapi) ? null : options.openapi,
    asyncapi: options.asyncapi ?? null,
    targets: options.targets,
    lint: options.lint ?? 'skip',
    plugins: (options.plugins ?? []).map((p) => p.name),
    extraFiles: Object.keys(options.extraFiles ?? {}),
  });
  const key = createHash('sha256').update(what).digest('hex').slice(0, 12);
  return path.join(tmpdir(), `paygate-compile-${checkout}`, `${options.label.replace(/[^\w.-]/g, '_')}-${key}`);
}
