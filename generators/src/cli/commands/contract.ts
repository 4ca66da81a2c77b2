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
  use: { type: 'string', multiple: true },
  tenant: { type: 'string', multiple: true },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  config: { type: 'string' },
  checks: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'request-timeout': { type: 'string' },
  'max-time': { type: 'string' },
  'fail-on-unseen-properties': { type: 'boolean' },
  'fail-fast': { type: 'boolean' },
  'max-negatives': { type: 'string' },
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

type SchemeInfo = { type?: unknown; scheme?: unknown };
const schemesOf = (document: Record<string, unknown>) =>
  ((document['components'] ?? {}) as { securitySchemes?: Record<string, SchemeInfo> }).securitySchemes ?? {};

/** The default set's credentials from PAYGATE_AUTH_<SCHEME>. */
function defaultsFromEnv(document: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(schemesOf(document))) {
    const value = env[authEnvName(name)];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** Credentials of the `default` set from `--auth SCHEME=VALUE` (basic: `SCHEME=USER:PASSWORD`) and PAYGATE_AUTH_<SCHEME>. */
export async function authFromFlags(
  document: Record<string, unknown>,
  flags: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Record<string, unknown>> {
  const { buildConfig, ConfigError } = await import('@paygate/contract-tests/check');
  try {
    const config = buildConfig({ schemes: schemesOf(document), auth: flags, env, defaultFromEnv: defaultsFromEnv(document, env) });
    return { ...(config.credentials.find((c) => c.name === 'default')?.auth ?? {}) };
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

type SpecFlags = {
  spec: string;
  auth?: string[];
  use?: string[];
  tenant?: string[];
  include?: string[];
  exclude?: string[];
  config?: string;
  checks?: string;
  junit?: string;
  'dry-run'?: boolean;
  'request-timeout'?: string;
  'max-time'?: string;
  'fail-on-unseen-properties'?: boolean;
  'fail-fast'?: boolean;
  'max-negatives'?: string;
};

function seconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} takes a number of seconds above 0, got ${JSON.stringify(raw)}`);
  return n * 1000;
}

/** `paygate contract --spec FILE`: the spec-driven checks of @paygate/contract-tests/check against any API (D125 paygate contract checks any API against its spec; D270 stateful contract checker). */
async function runSpecChecks(flags: SpecFlags, baseUrl: URL, io: CliIo): Promise<ExitCode> {
  let checker: typeof import('@paygate/contract-tests/check');
  try {
    checker = await import('@paygate/contract-tests/check');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new EnvironmentError('The contract checker is not installed: run `npm install -D @paygate/contract-tests`, then rerun.');
  }
  const checks = flags.checks?.split(',').map((c) => c.trim());
  const unknownChecks = checks?.filter((c) => !(checker.ALL_CHECKS as readonly string[]).includes(c)) ?? [];
  if (unknownChecks.length > 0)
    throw new UsageError(`--checks takes ${checker.ALL_CHECKS.join(', ')}; unknown: ${unknownChecks.join(', ')}`);
  const maxNegatives = flags['max-negatives'] === undefined ? undefined : Number(flags['max-negatives']);
  if (maxNegatives !== undefined && (!Number.isInteger(maxNegatives) || maxNegatives < 0))
    throw new UsageError(`--max-negatives takes a whole number, got ${JSON.stringify(flags['max-negatives'])}`);
  const requestTimeout = seconds('request-timeout', flags['request-timeout']);
  const maxTime = seconds('max-time', flags['max-time']);
  const input = path.resolve(io.cwd, flags.spec);
  const { existsSync, readFileSync } = await import('node:fs');
  if (!existsSync(input)) throw new EnvironmentError(`--spec ${flags.spec}: no such file`);
  let file: unknown;
  if (flags.config !== undefined) {
    const configPath = path.resolve(io.cwd, flags.config);
    if (!existsSync(configPath)) throw new EnvironmentError(`--config ${flags.config}: no such file`);
    const text = readFileSync(configPath, 'utf8');
    try {
      file = /\.json$/i.test(configPath) ? JSON.parse(text) : (await import('yaml')).parse(text);
    } catch (error) {
      throw new UsageError(
        `--config ${flags.config}: not valid ${/\.json$/i.test(configPath) ? 'JSON' : 'YAML'} (${(error as Error).message})`,
      );
    }
  }
  const { loadOpenApi } = await import('../../parse/openapi.js');
  const { document } = await loadOpenApi({ input, cwd: io.cwd, lint: 'skip' });
  let config: import('@paygate/contract-tests/check').CheckConfig;
  try {
    config = checker.buildConfig({
      schemes: schemesOf(document),
      file,
      ...(flags.auth ? { auth: flags.auth } : {}),
      ...(flags.use ? { use: flags.use } : {}),
      ...(flags.tenant ? { tenants: flags.tenant } : {}),
      ...(flags.include ? { include: flags.include } : {}),
      ...(flags.exclude ? { exclude: flags.exclude } : {}),
      env: process.env,
      defaultFromEnv: defaultsFromEnv(document, process.env),
    });
  } catch (error) {
    if (error instanceof checker.ConfigError) throw new UsageError(error.message);
    throw error;
  }
  const options = {
    document,
    baseUrl: baseUrl.href,
    credentials: config.credentials,
    rules: config.rules,
    tenants: config.tenants,
    include: config.include,
    exclude: config.exclude,
    ...(checks === undefined ? {} : { checks: checks as import('@paygate/contract-tests/check').CheckName[] }),
  };
  if (flags['dry-run']) {
    io.stdout(`${checker.planChecks(options)}\n`);
    return EXIT.ok;
  }
  try {
    await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new EnvironmentError(`Cannot reach ${baseUrl.href} (${(error as Error).message}): start the deployment or fix --base-url.`);
  }
  const palette = checker.paletteFor(process.stderr, process.env);
  const junit = flags.junit === undefined ? undefined : new checker.JUnitWriter(path.resolve(io.cwd, flags.junit));
  io.stderr(
    `Checking ${baseUrl.href} against ${flags.spec}${config.credentials.length > 0 ? ` with credential sets ${config.credentials.map((c) => `${c.name} (${Object.keys(c.auth).join(', ')})`).join(', ')}` : ' without credentials'}${junit ? `; JUnit report: ${flags.junit} (written as it goes)` : ''}\n`,
  );
  const report = await checker.checkApi({
    ...options,
    ...(requestTimeout === undefined ? {} : { timeoutMs: requestTimeout }),
    ...(maxTime === undefined ? {} : { maxTimeMs: maxTime }),
    ...(maxNegatives === undefined ? {} : { maxNegatives }),
    failOnUnseenProperties: flags['fail-on-unseen-properties'] === true,
    failFast: flags['fail-fast'] === true,
    onEvent: (event) => {
      if (event.type === 'positive') {
        io.stderr(`${checker.positiveLine(event, palette)}\n`);
        return;
      }
      io.stderr(`${checker.operationLine(event, palette)}\n`);
      junit?.operation(event.operationId, event.cases);
    },
  });
  junit?.finish(report);
  io.stdout(`${checker.formatCoverage(report)}\n`);
  io.stderr(`${checker.summary(report, palette)}\n`);
  if (!report.ok) {
    io.stderr(
      `${checker.formatFailures(report)}\n\nThe deployment does not conform: ${report.failures.length} failure(s) in ${report.cases.length} requests.\n`,
    );
    return EXIT.failed;
  }
  io.stderr(`The deployment conforms to the spec (${report.cases.length} requests).\n`);
  return EXIT.ok;
}

export const command: CliCommand = {
  name: 'contract',
  summary: "check a deployment against a spec (any API with --spec; Paygate's flow suite without) with a coverage table and JUnit",
  usage: `Usage: paygate contract --spec FILE --base-url URL [--auth [SET:]SCHEME=VALUE]... [--use SET=SELECTOR]...
                        [--tenant SET]... [--include SELECTOR]... [--exclude SELECTOR]... [--config FILE] [--checks LIST]
                        [--junit FILE] [--dry-run] [--request-timeout S] [--max-time S] [--fail-on-unseen-properties]
       paygate contract --base-url URL --client-id ID --client-secret SECRET [--junit FILE] [--only LIST]

With --spec: checks any API against its OpenAPI document, statefully and with nothing but credentials. Values in
answers feed later requests (a response field named like a parameter, an id of a collection, OpenAPI links, Location
headers, URLs of the API's own paths), so by-id operations run on resources the run made; a documented 4xx teaches
it (an input the error names, a value to make unique, another credential set). Per operation: positive data,
negative data per field and constraint (4xx expected), no / partial / wrong credentials (4xx), boundary values,
an idempotent replay (same answer, no second effect), tenant isolation, a child amount above its parent's, an
undeclared method; deletes last, then use-after-free reads, then clean-up. Every response is checked (status,
content type, headers, body schema). Invented URLs point at https://paygate-contract.invalid/, e-mail addresses at
example.com; nothing is sent to another host than --base-url's. 429 answers are waited out per Retry-After.

  --spec FILE              the OpenAPI 3.0/3.1 document
  --auth SCHEME=VALUE      a credential of the default set for a security scheme of the spec (HTTP basic:
                           SCHEME=USER:PASSWORD); VALUE env:NAME reads a variable; or PAYGATE_AUTH_<SCHEME>
  --auth SET:SCHEME=VALUE  a credential of a named set (e.g. partner:ClientId=..., merchant:ClientId=...)
  --use SET=SELECTOR,...   which set serves which operations; a selector is op:ID, tag:NAME, path:GLOB (optionally
                           "METHOD GLOB"), scheme:NAME, or a bare operation id or tag. Without a rule: the first set
                           that covers the operation, the others after a 401/403
  --tenant SET             a set that must not read what the other sets made (checked on every by-id read)
  --include / --exclude SELECTOR   which operations run (excluded ones are never sent)
  --config FILE            the same in JSON or YAML: {credentials: {SET: {SCHEME: VALUE}}, use: {SET: [SELECTOR]},
                           tenants: [SET], include: [...], exclude: [...]}
  --checks LIST            some of positive, negative, unauthenticated, stateful, boundaries, idempotency,
                           isolation, invariants, methods (default all)
  --dry-run                print the plan (order, credential set, where each id comes from) and send nothing
  --request-timeout S      time bound per request (default 15); --max-time S: for the whole run
  --fail-on-unseen-properties   a declared response property no answer carried fails the run (default: reported)
  --fail-fast              stop at the first failure
  --junit FILE             JUnit XML, rewritten after each operation (a killed run leaves a valid file)

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
      const { 'base-url': _baseUrl, only: _only, 'client-id': _clientId, 'client-secret': _clientSecret, ...spec } = flags;
      return runSpecChecks({ ...spec, spec: flags.spec }, baseUrl, io);
    }
    const specOnly = [
      'auth',
      'use',
      'tenant',
      'include',
      'exclude',
      'config',
      'checks',
      'dry-run',
      'request-timeout',
      'max-time',
      'fail-on-unseen-properties',
      'fail-fast',
      'max-negatives',
    ] as const;
    const given = specOnly.filter((name) => flags[name] !== undefined);
    if (given.length > 0) throw new UsageError(`${given.map((n) => `--${n}`).join(', ')} need --spec FILE`);
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
