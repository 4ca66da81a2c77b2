import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Workspace packages export their TypeScript sources under the "source" condition,
    // so tests run against src/ without a build step.
    conditions: ['source'],
  },
  // Vitest 4 resolves test imports through the SSR pipeline, which has its own condition list.
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'generators/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
