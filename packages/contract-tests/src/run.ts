/**
 * Runs the contract suite against a deployment through vitest's Node API (`startVitest`), with vitest's JUnit reporter
 * for CI. The suite's harness (support/gateway.ts) reads the deployment from PAYGATE_CONTRACT_* variables, which the
 * forked test workers inherit; they are restored afterwards.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';

/** The suite's files, by the names `only` (and `paygate contract --only`) takes. */
export const SUITE_FILES = ['auth', 'client', 'flows', 'fuzz', 'hostile', 'statuses'] as const;
export type SuiteFile = (typeof SUITE_FILES)[number];

export interface ContractSuiteOptions {
  /** The deployment, in sandbox mode and disposable (the suite creates merchants and orders, moves sandbox clocks). */
  baseUrl: string;
  /** A partner credential of that deployment. */
  clientId: string;
  clientSecret: string;
  /** Some suite files only: coverage gaps are then reported, not failed. */
  only?: readonly SuiteFile[];
  /** Also write a JUnit XML report here. */
  junit?: string;
}

export interface ContractSuiteResult {
  /** No failed test, no unhandled error and (for a full run) no coverage gap. */
  ok: boolean;
  failedTests: number;
  /** The coverage teardown (suite/global-setup.ts) found a declared status never exercised, or an undeclared one. */
  coverageGap: boolean;
}

const ENV_KEYS = [
  'PAYGATE_CONTRACT_BASE_URL',
  'PAYGATE_CONTRACT_CLIENT_ID',
  'PAYGATE_CONTRACT_CLIENT_SECRET',
  'PAYGATE_CONTRACT_PARTIAL',
] as const;

/** This package's directory, and whether this module runs as TypeScript (this repository) or built JavaScript. */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CODE_DIR = FROM_SOURCE ? 'src' : 'dist';
const EXT = FROM_SOURCE ? 'ts' : 'js';

export async function runContractSuite(options: ContractSuiteOptions): Promise<ContractSuiteResult> {
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  const savedExitCode = process.exitCode;
  process.exitCode = undefined;
  Object.assign(process.env, {
    PAYGATE_CONTRACT_BASE_URL: options.baseUrl.replace(/\/$/, ''),
    PAYGATE_CONTRACT_CLIENT_ID: options.clientId,
    PAYGATE_CONTRACT_CLIENT_SECRET: options.clientSecret,
    ...(options.only === undefined ? {} : { PAYGATE_CONTRACT_PARTIAL: '1' }),
  });
  const files = (options.only ?? SUITE_FILES).map((name) => `${CODE_DIR}/suite/${name}.suite.${EXT}`);
  // Running from source, the @paygate packages resolve to their TypeScript as in this repository's vitest config.
  // The global setup runs in vitest's own `__vitest__` environment, which needs the condition too (without it the
  // suite resolved @paygate/contract only once a build had written dist/).
  const source = { resolve: { conditions: ['source'] } };
  const conditions = FROM_SOURCE ? { ...source, ssr: source, environments: { __vitest__: source } } : {};
  try {
    const vitest = await startVitest(
      'test',
      [],
      {
        root: PACKAGE_DIR,
        config: false,
        include: files,
        // The defaults exclude node_modules and dist, which is where an installed suite lives.
        exclude: [],
        globalSetup: [path.join(PACKAGE_DIR, CODE_DIR, 'suite', `global-setup.${EXT}`)],
        testTimeout: 30_000,
        hookTimeout: 60_000,
        pool: 'forks',
        watch: false,
        reporters: options.junit === undefined ? ['default'] : ['default', 'junit'],
        ...(options.junit === undefined ? {} : { outputFile: { junit: options.junit } }),
      },
      conditions,
    );
    const failedTests = vitest.state.getCountOfFailedTests();
    const unhandled = vitest.state.getUnhandledErrors().length;
    await vitest.close();
    const coverageGap = process.exitCode !== undefined && process.exitCode !== 0;
    return { ok: failedTests === 0 && unhandled === 0 && !coverageGap, failedTests: failedTests + unhandled, coverageGap };
  } finally {
    process.exitCode = savedExitCode;
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}
