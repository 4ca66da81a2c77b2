/**
 * `paygate contract`: the contract suite of @paygate/contract-tests (every response checked against the spec, every
 * declared status exercised, the seed's flows end to end) against a running deployment, with vitest's JUnit reporter
 * for CI. The operation x status coverage table is printed by the suite's global setup.
 */
import path from 'node:path';
import { EnvironmentError, EXIT, UsageError, type CliCommand } from '../command.js';
import { parseFlags } from './spec-options.js';

/** The suite's files, by the name `--only` takes (SUITE_FILES of @paygate/contract-tests, checked by its test). */
export const SUITE_FILES = ['auth', 'client', 'flows', 'fuzz', 'hostile', 'statuses'] as const;
type SuiteFile = (typeof SUITE_FILES)[number];
const isSuiteFile = (name: string): name is SuiteFile => (SUITE_FILES as readonly string[]).includes(name);

const FLAGS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  junit: { type: 'string' },
  only: { type: 'string' },
} as const;

function parseBaseUrl(raw: string | undefined): URL {
  if (raw === undefined) throw new UsageError('--base-url is required: the deployment to check, e.g. --base-url https://sandbox.example.com');
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return url;
  } catch {
    throw new UsageError(`--base-url must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
}

async function assertReachable(baseUrl: URL): Promise<void> {
  const health = new URL('healthz', baseUrl.href.endsWith('/') ? baseUrl : `${baseUrl.href}/`);
  try {
    await fetch(health, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new EnvironmentError(`Cannot reach ${health.href} (${(error as Error).message}). Start the deployment (e.g. \`npx paygate serve\`) or fix --base-url.`);
  }
}

export const command: CliCommand = {
  name: 'contract',
  summary: 'run the contract suite against a deployment (coverage table, JUnit report; exit 1 on any violation)',
  usage: `Usage: paygate contract --base-url URL --client-id ID --client-secret SECRET [--junit FILE] [--only LIST]

Checks a running Paygate gateway against the spec: every response (status, content type, headers, body schema),
every declared status of every operation, negative and fuzzed requests, and the end-to-end flows. Prints the
operation x status coverage table.

Flags:
  --base-url URL         the deployment (sandbox mode, disposable: the suite creates merchants and orders and moves
                         its merchants' sandbox clocks)
  --client-id ID         a partner credential (or PAYGATE_CONTRACT_CLIENT_ID)
  --client-secret SECRET its secret (or PAYGATE_CONTRACT_CLIENT_SECRET, which keeps it out of the process list)
  --junit FILE           also write a JUnit XML report for CI
  --only LIST            run some suite files only (${SUITE_FILES.join(', ')}); coverage gaps are then reported, not failed

Checks that need the in-process gateway (in-flight 409s, injected 500s, a lowered rate limit for 429) are listed
as not applicable. The suite is the @paygate/contract-tests package (npm install -D @paygate/contract-tests).

Exit codes: 0 conforms, 1 a violation or a coverage gap, 2 bad flags, 3 the suite or the deployment is unreachable.

Example (CI):
  PAYGATE_CONTRACT_CLIENT_SECRET=... npx paygate contract --base-url http://127.0.0.1:8080 --client-id pk_test_ci --junit reports/contract.xml`,
  async run(argv, io) {
    const flags = parseFlags(argv, FLAGS);
    const baseUrl = parseBaseUrl(flags['base-url']);
    const clientId = flags['client-id'] ?? process.env['PAYGATE_CONTRACT_CLIENT_ID'];
    const clientSecret = flags['client-secret'] ?? process.env['PAYGATE_CONTRACT_CLIENT_SECRET'];
    if (clientId === undefined || clientSecret === undefined) {
      throw new UsageError('a partner credential is required: --client-id and --client-secret (or PAYGATE_CONTRACT_CLIENT_ID / PAYGATE_CONTRACT_CLIENT_SECRET)');
    }
    const named = flags.only?.split(',').map((name) => name.trim());
    const unknown = named?.filter((name) => !isSuiteFile(name)) ?? [];
    if (unknown.length > 0) throw new UsageError(`--only takes ${SUITE_FILES.join(', ')}; unknown: ${unknown.join(', ')}`);
    const only = named?.filter(isSuiteFile);
    let suite: typeof import('@paygate/contract-tests');
    try {
      suite = await import('@paygate/contract-tests');
    } catch (error) {
      // Only a missing package is the user's to fix; anything else failing to load is a bug worth its stack.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
      throw new EnvironmentError('The contract suite is not installed: run `npm install -D @paygate/contract-tests` (it brings vitest), then rerun.');
    }
    await assertReachable(baseUrl);
    const junit = flags.junit === undefined ? undefined : path.resolve(io.cwd, flags.junit);
    const files = only ?? SUITE_FILES;
    io.stderr(`Running the contract suite (${files.join(', ')}) against ${baseUrl.href}${junit ? `; JUnit report: ${junit}` : ''}\n`);
    const result = await suite.runContractSuite({
      baseUrl: baseUrl.href,
      clientId,
      clientSecret,
      ...(only === undefined ? {} : { only }),
      ...(junit === undefined ? {} : { junit }),
    });
    if (!result.ok) {
      io.stderr(`The deployment does not conform: see the failures${result.coverageGap ? ' and the coverage table' : ''} above${junit ? ` (and ${junit})` : ''}.\n`);
      return EXIT.failed;
    }
    io.stderr('The deployment conforms to the spec.\n');
    return EXIT.ok;
  },
};
