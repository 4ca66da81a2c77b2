import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.js';

// The race and fault tests need a real PostgreSQL (PGlite serialises transactions, so races never show there).
// vitest fails a file that registers no test, so without a database they are excluded, loudly.
const withPostgres = Boolean(process.env['PAYGATE_TEST_DATABASE_URL']);
// Test files in parallel: one per core plus one (D139 test workers and parallel prechecks). Vitest's default is one fewer than the cores, which on a
// 2-core machine ran every file one after the other; many files spend much of their time waiting on child processes
// (tsc, gateways, Chromium, PostgreSQL) or timers, so a third worker fills that time. PAYGATE_TEST_WORKERS overrides.
const maxWorkers = Number(process.env['PAYGATE_TEST_WORKERS']) || availableParallelism() + 1;
if (!withPostgres) {
  console.warn('\n!!!!! PAYGATE_TEST_DATABASE_URL is not set: the PostgreSQL fault tests in test/faults DID NOT RUN !!!!!\n');
}

export default defineConfig({
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
  test: {
    include: ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'generators/src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(withPostgres ? [] : ['test/faults/**'])],
    // test/support/global-setup.ts: what the run shares instead of each file making its own (an initialised PGlite data
    // dir, one build of dist/; D138). The contract suite's prints the operation x status coverage table after all files
    // ran, and fails the run when a declared cell was not exercised (without an allow-listed reason) or an undeclared
    // status was seen.
    globalSetup: ['test/support/global-setup.ts', 'packages/contract-tests/src/suite/global-setup.ts'],
    // A time limit here guards against a hang; it is never the assertion. Limits are generous so a busy machine
    // (a build beside the run, load 25-35 on 2 cores) slows tests without failing them (issue 35); what a test waits
    // for inside is an event (waitFor/expect.poll on the state it needs), not a fixed delay.
    // `npm run test:profile` asks for each file's CPU, its children's included (test/support/cpu-per-file.ts)
    setupFiles: process.env['PAYGATE_TEST_CPU_LOG'] ? ['test/support/cpu-per-file.ts'] : [],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // longest files first, from Vitest's cache or, in a fresh clone, from the last recorded profile
    sequence: { sequencer: LongestFirstSequencer },
    pool: 'forks',
    maxWorkers,
  },
});
