/**
 * `paygate contract` end to end: a reference gateway in this process (in-memory PGlite, seeded partner credential),
 * the CLI in a child process (it starts vitest, which must not nest inside this vitest) running a subset of the
 * suite (@paygate/contract-tests) against it, and the JUnit report it writes. The full suite runs in `npm test`
 * (test/contract).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@paygate/reference/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUITE_FILES as PACKAGE_SUITE_FILES } from '@paygate/contract-tests';
import { EXIT } from '../command.js';
import { SUITE_FILES } from './contract.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = path.join(ROOT, 'generators/src/cli/main.ts');
const PARTNER = { id: 'pk_test_cli_contract', secret: 'ps_test_cli_contract_secret_0001' };

/** Runs `paygate <argv>` from source (tsx, the workspace's `source` condition) and resolves with its exit code and output. */
function paygate(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `import { processIo, runCli } from ${JSON.stringify(MAIN)}; process.exitCode = await runCli(process.argv.slice(1), processIo());`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script, ...argv],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

let gateway: Awaited<ReturnType<typeof serve>>;
let baseUrl: string;
let dir: string;

// the worker runs other files after this one (the unit project shares processes): LOG_LEVEL is put back after
const logLevelBefore = process.env['LOG_LEVEL'];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-contract-cli-'));
  // The gateway's request log (pino reads LOG_LEVEL from the process) would bury the test output.
  process.env['LOG_LEVEL'] = 'silent';
  gateway = await serve(
    {
      PORT: '0',
      PAYGATE_DATA_DIR: 'memory://cli-contract',
      PAYGATE_PARTNER_CLIENT_ID: PARTNER.id,
      PAYGATE_PARTNER_CLIENT_SECRET: PARTNER.secret,
      PAYGATE_RATE_LIMIT: '100000',
    },
    () => undefined,
  );
  baseUrl = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (logLevelBefore === undefined) delete process.env['LOG_LEVEL'];
  else process.env['LOG_LEVEL'] = logLevelBefore;
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('paygate contract', () => {
  it('offers --only exactly the files of @paygate/contract-tests', () => {
    expect(SUITE_FILES).toEqual(PACKAGE_SUITE_FILES);
  });

  it('runs suite files against a deployment and writes a JUnit report (exit 0)', { timeout: 180_000 }, async () => {
    const junit = path.join(dir, 'contract.xml');
    const { code, stderr } = await paygate([
      'contract',
      '--base-url',
      baseUrl,
      '--client-id',
      PARTNER.id,
      '--client-secret',
      PARTNER.secret,
      '--only',
      'client',
      '--junit',
      junit,
    ]);
    expect(stderr).toContain('The deployment conforms to the spec.');
    expect(code).toBe(EXIT.ok);
    const report = await readFile(junit, 'utf8');
    expect(report).toMatch(/<testsuites name="vitest tests" tests="[1-9]\d*" failures="0" errors="0"/);
    expect(report).toContain('src/suite/client.suite.ts');
  });

  it('exits 1 naming the failures when the deployment rejects the credential', { timeout: 180_000 }, async () => {
    const junit = path.join(dir, 'rejected.xml');
    const { code, stderr } = await paygate([
      'contract',
      '--base-url',
      baseUrl,
      '--client-id',
      PARTNER.id,
      '--client-secret',
      'ps_test_not_the_secret_00000000',
      '--only',
      'client',
      '--junit',
      junit,
    ]);
    expect(code).toBe(EXIT.failed);
    expect(stderr).toContain('The deployment does not conform');
    expect(await readFile(junit, 'utf8')).toMatch(/failures="[1-9]/);
  });
});
