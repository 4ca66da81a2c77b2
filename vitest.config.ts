import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.js';

// The race and fault tests need a real PostgreSQL (PGlite serialises transactions, so races never show there).
// vitest fails a file that registers no test, so without a database they are excluded, loudly.
const withPostgres = Boolean(process.env['PAYGATE_TEST_DATABASE_URL']);
// Test files in parallel: one per core plus two (D139 test workers and parallel prechecks). Vitest's default is one fewer than the cores, which on a
// 2-core machine ran every file one after the other; many files spend much of their time waiting on child processes
// (tsc, gateways, Chromium, PostgreSQL) or timers, so extra workers fill that time (with one extra, the cores were
// still idle about a fifth of the run). PAYGATE_TEST_WORKERS overrides.
const maxWorkers = Number(process.env['PAYGATE_TEST_WORKERS']) || availableParallelism() + 2;
if (!withPostgres) {
  console.warn('\n!!!!! PAYGATE_TEST_DATABASE_URL is not set: the PostgreSQL fault tests in test/faults DID NOT RUN !!!!!\n');
}

/**
 * The files of the "unit" project (D482 shared worker processes for unit tests): the tests beside the code, and the
 * generator, spec-rule and corpus-report tests under test/ that start no server.
 */
const SHARED = [
  'packages/*/src/**/*.test.ts',
  'generators/src/**/*.test.ts',
  'test/generators/**/*.test.ts',
  'test/spec/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/lint/**/*.test.ts',
];
/**
 * Among those, the files that run in a process of their own: the mutation files replace modules with `vi.mock`,
 * which a shared module graph would carry into the next file; the scaffold tests serve HTTP from the test process.
 */
const SERVING = ['events', 'pagination', 'routes-scaffold', 'shelf-scaffold', 'vendor-scaffold'].map((n) => `test/generators/${n}.test.ts`);
const OWN_PROCESS = ['packages/contract-tests/src/spec-check/mutation/mutants.*.test.ts', ...SERVING];
/** test/generators' files that share processes, by name (a glob cannot say "all but these" without extglob's pitfalls). */
const sharedGeneratorTests = readdirSync(new URL('./test/generators', import.meta.url), { recursive: true })
  .map((f) => `test/generators/${String(f).split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.test.ts') && !SERVING.includes(f));

// What every project resolves the same way (the root config is not a project: each inline project lists it).
const resolution = {
  resolve: {
    // Workspace packages export their TypeScript sources under the "source" condition,
    // so tests run against src/ without a build step.
    conditions: ['source'],
  },
  // Vitest 4 resolves test imports through the SSR pipeline, which has its own condition list.
  ssr: { resolve: { conditions: ['source'] } },
  // The global setup (the contract coverage table) runs in Vitest's own `__vitest__` environment, which has a third
  // condition list: without "source" there, `@paygate/contract` resolves to dist/ and a fresh clone (no build) fails.
  environments: { __vitest__: { resolve: { conditions: ['source'] } } },
};
// `npm run test:profile` asks for each file's CPU, its children's included (test/support/cpu-per-file.ts)
const setupFiles = process.env['PAYGATE_TEST_CPU_LOG'] ? ['test/support/cpu-per-file.ts'] : [];
// A time limit here guards against a hang; it is never the assertion. Limits are generous so a busy machine
// (a build beside the run, load 25-35 on 2 cores) slows tests without failing them (issue 35); what a test waits
// for inside is an event (waitFor/expect.poll on the state it needs), not a fixed delay.
const limits = { testTimeout: 120_000, hookTimeout: 180_000 };

export default defineConfig({
  ...resolution,
  test: {
    // test/support/global-setup.ts: what the run shares instead of each file making its own (an initialised PGlite data
    // dir, one build of dist/; D138). The contract suite's prints the operation x status coverage table after all files
    // ran, and fails the run when a declared cell was not exercised (without an allow-listed reason) or an undeclared
    // status was seen. Set on the root config only: Vitest runs the root's global setup once for the whole run, and
    // the projects below (which do not extend the root) read what it provides.
    globalSetup: ['test/support/global-setup.ts', 'packages/contract-tests/src/suite/global-setup.ts'],
    // Two projects, one per way a file runs (D482 shared worker processes for unit tests):
    // - "unit", the tests beside the code in packages/ and generators/ (and test/'s that serve nothing), share their worker processes and module graph
    //   (`isolate: false`): a file no longer pays a process start and the import of every library and module it uses,
    //   which was about a fifth of these files' CPU (docs/benchmarks.md, npm test: wall time and CPU);
    // - "integration", test/ (gateways, Chromium, PostgreSQL, child processes, the contract suite's per-process
    //   coverage) and the files that mock modules, each file in a fresh process as before.
    projects: [
      {
        ...resolution,
        test: {
          name: 'unit',
          include: SHARED,
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          isolate: false,
          pool: 'forks',
          setupFiles,
          ...limits,
        },
      },
      {
        ...resolution,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...OWN_PROCESS],
          exclude: [
            ...configDefaults.exclude,
            // the shared test/ folders but the serving generator tests
            ...sharedGeneratorTests,
            ...SHARED.filter((g) => g.startsWith('test/') && !g.startsWith('test/generators/')),
            ...(withPostgres ? [] : ['test/faults/**']),
          ],
          pool: 'forks',
          setupFiles,
          ...limits,
        },
      },
    ],
    // longest files first, from Vitest's cache or, in a fresh clone, from the last recorded profile
    sequence: { sequencer: LongestFirstSequencer },
    maxWorkers,
  },
});
