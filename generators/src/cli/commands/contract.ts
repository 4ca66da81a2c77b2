/**
 * `paygate contract`: the contract suite of @paygate/contract-tests (every response checked against the spec, every
 * declared status exercised, the seed's flows end to end) against a running deployment, with vitest's JUnit reporter
 * for CI. The operation x status coverage table is printed by the suite's global setup.
 */
import path from 'node:path';
import { EnvironmentError, EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';
import { parseFlags } from './spec-options.js';

/** The suite's files, by the name `--only` takes (SUITE_FILES of @paygate/contract-tests, checked by its test). */
export const SUITE_FILES = ['auth', 'client', 'flows', 'fuzz', 'hostile', 'statuses'] as const;
type SuiteFile = (typeof SUITE_FILES)[number];
const isSuiteFile = (name: string): name is SuiteFile => (SUITE_FILES as readonly string[]).includes(name);

const FLAGS = {
  spec: { type: 'string' },
  auth: { type: 'string', multiple: true },
  checks: { type: 'string' },
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  junit: { type: 'string' },
  only: { type: 'string' },
} as const;

function parseBaseUrl(raw: string | undefined): URL {
  if (raw === undefined)
    throw new UsageError('--base-url is required: the deployment to check, e.g. --base-url https://sandbox.example.com');
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
    throw new EnvironmentError(
      `Cannot reach ${health.href} (${(error as Error).message}). Start the deployment (e.g. \`npx paygate serve\`) or fix --base-url.`,
    );
  }
}

/** `PAYGATE_AUTH_<SCHEME>` (scheme name upper-cased, other characters `_`): a credential kept out of the process list. */
export function authEnvName(scheme: string): string {
  return `PAYGATE_AUTH_${scheme.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

/** Credentials per security scheme from `--auth name=value` (basic: `name=user:password`) and PAYGATE_AUTH_<NAME>. */
export function authFromFlags(
  document: Record<string, unknown>,
  flags: readonly string[],
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const components = (document['components'] ?? {}) as { securitySchemes?: Record<string, { type?: unknown; scheme?: unknown }> };
  const schemes = components.securitySchemes ?? {};
  const raw = new Map<string, string>();
  for (const name of Object.keys(schemes)) {
    const fromEnv = env[authEnvName(name)];
    if (fromEnv !== undefined && fromEnv !== '') raw.set(name, fromEnv);
  }
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new UsageError(`--auth takes SCHEME=VALUE (a security scheme of the spec), got ${JSON.stringify(flag)}`);
    raw.set(flag.slice(0, eq), flag.slice(eq + 1));
  }
  const auth: Record<string, unknown> = {};
  for (const [name, value] of raw) {
    const scheme = schemes[name];
    if (scheme === undefined) {
      const known = Object.keys(schemes);
      throw new UsageError(
        `--auth ${name}: the spec declares no security scheme "${name}"${known.length > 0 ? ` (it declares ${known.join(', ')})` : ''}`,
      );
    }
    if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic') {
      const colon = value.indexOf(':');
      if (colon < 0) throw new UsageError(`--auth ${name} is HTTP basic: give ${name}=USER:PASSWORD`);
      auth[name] = { username: value.slice(0, colon), password: value.slice(colon + 1) };
    } else auth[name] = value;
  }
  return auth;
}

const CHECK_NAMES = ['positive', 'negative', 'unauthenticated', 'stateful'] as const;

/** `paygate contract --spec FILE`: the spec-driven checks of @paygate/contract-tests/check against any API (D125). */
async function runSpecChecks(
  flags: { spec: string; auth?: string[]; checks?: string; junit?: string },
  baseUrl: URL,
  io: CliIo,
): Promise<ExitCode> {
  const checks = flags.checks?.split(',').map((c) => c.trim());
  const unknownChecks = checks?.filter((c) => !(CHECK_NAMES as readonly string[]).includes(c)) ?? [];
  if (unknownChecks.length > 0) throw new UsageError(`--checks takes ${CHECK_NAMES.join(', ')}; unknown: ${unknownChecks.join(', ')}`);
  const input = path.resolve(io.cwd, flags.spec);
  const { existsSync, writeFileSync, mkdirSync } = await import('node:fs');
  if (!existsSync(input)) throw new EnvironmentError(`--spec ${flags.spec}: no such file`);
  const { loadOpenApi } = await import('../../parse/openapi.js');
  const { document } = await loadOpenApi({ input, cwd: io.cwd, lint: 'skip' });
  const auth = authFromFlags(document, flags.auth ?? [], process.env);
  let checker: typeof import('@paygate/contract-tests/check');
  try {
    checker = await import('@paygate/contract-tests/check');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new EnvironmentError('The contract checker is not installed: run `npm install -D @paygate/contract-tests`, then rerun.');
  }
  try {
    await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new EnvironmentError(`Cannot reach ${baseUrl.href} (${(error as Error).message}): start the deployment or fix --base-url.`);
  }
  io.stderr(
    `Checking ${baseUrl.href} against ${flags.spec}${Object.keys(auth).length > 0 ? ` with credentials for ${Object.keys(auth).join(', ')}` : ' without credentials'}\n`,
  );
  const report = await checker.checkApi({
    document,
    baseUrl: baseUrl.href,
    auth,
    ...(checks === undefined ? {} : { checks: checks as (typeof CHECK_NAMES)[number][] }),
  });
  io.stdout(`${checker.formatCoverage(report)}\n`);
  if (flags.junit !== undefined) {
    const junit = path.resolve(io.cwd, flags.junit);
    mkdirSync(path.dirname(junit), { recursive: true });
    writeFileSync(junit, checker.toJUnit(report));
    io.stderr(`JUnit report: ${junit}\n`);
  }
  if (!report.ok) {
    io.stderr(
      `${checker.formatFailures(report)}\n\nThe deployment does not conform: ${report.failures.length} failure(s) in ${report.cases.length} checks.\n`,
    );
    return EXIT.failed;
  }
  io.stderr(`The deployment conforms to the spec (${report.cases.length} checks).\n`);
  return EXIT.ok;
}

export const command: CliCommand = {
  name: 'contract',
  summary: "check a deployment against a spec (any API with --spec; Paygate's flow suite without) with a coverage table and JUnit",
  usage: `Usage: paygate contract --spec FILE --base-url URL [--auth SCHEME=VALUE]... [--checks LIST] [--junit FILE]
       paygate contract --base-url URL --client-id ID --client-secret SECRET [--junit FILE] [--only LIST]

With --spec: checks any API against its OpenAPI document (in the spirit of Schemathesis): every response conforms
(status declared, content type, headers, body schema); positive data built from the spec's examples and schemas is
accepted; negative data (a wrong type, a missing required property or query parameter) gets a 4xx; an operation that
declares security refuses a request without credentials; a Location header is followed. Failures name the operation,
the status and the JSON pointer of the schema. 429 answers are waited out per Retry-After (at most 30 s a request).

  --spec FILE            the OpenAPI 3.0/3.1 document
  --auth SCHEME=VALUE    a credential for a security scheme the spec declares (repeat per scheme; HTTP basic:
                         SCHEME=USER:PASSWORD), or the variable PAYGATE_AUTH_<SCHEME> (upper case, other characters _)
  --checks LIST          some of ${CHECK_NAMES.join(', ')} (default all)

Without --spec: Paygate's own suite (the layer on top for a Paygate gateway):

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
    if (flags.spec !== undefined) {
      if (flags.only !== undefined || flags['client-id'] !== undefined || flags['client-secret'] !== undefined) {
        throw new UsageError(
          "--only, --client-id and --client-secret belong to Paygate's suite (without --spec); with --spec give credentials per scheme with --auth",
        );
      }
      return runSpecChecks(
        {
          spec: flags.spec,
          ...(flags.auth ? { auth: flags.auth } : {}),
          ...(flags.checks ? { checks: flags.checks } : {}),
          ...(flags.junit ? { junit: flags.junit } : {}),
        },
        baseUrl,
        io,
      );
    }
    if (flags.auth !== undefined || flags.checks !== undefined) throw new UsageError('--auth and --checks need --spec FILE');
    const clientId = flags['client-id'] ?? process.env['PAYGATE_CONTRACT_CLIENT_ID'];
    const clientSecret = flags['client-secret'] ?? process.env['PAYGATE_CONTRACT_CLIENT_SECRET'];
    if (clientId === undefined || clientSecret === undefined) {
      throw new UsageError(
        'a partner credential is required: --client-id and --client-secret (or PAYGATE_CONTRACT_CLIENT_ID / PAYGATE_CONTRACT_CLIENT_SECRET)',
      );
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
      throw new EnvironmentError(
        'The contract suite is not installed: run `npm install -D @paygate/contract-tests` (it brings vitest), then rerun.',
      );
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
      io.stderr(
        `The deployment does not conform: see the failures${result.coverageGap ? ' and the coverage table' : ''} above${junit ? ` (and ${junit})` : ''}.\n`,
      );
      return EXIT.failed;
    }
    io.stderr('The deployment conforms to the spec.\n');
    return EXIT.ok;
  },
};
