import { configDefaults, defineConfig } from 'vitest/config';

// The race and fault tests need a real PostgreSQL (PGlite serialises transactions, so races never show there).
// vitest fails a file that registers no test, so without a database they are excluded, loudly.
const withPostgres = Boolean(process.env['PAYGATE_TEST_DATABASE_URL']);
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
    // Prints the contract suite's operation x status coverage table after all files ran, and fails the run when a
    // declared cell was not exercised (without an allow-listed reason) or an undeclared status was seen.
    globalSetup: ['packages/contract-tests/src/suite/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
