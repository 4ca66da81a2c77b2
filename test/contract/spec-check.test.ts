/**
 * `paygate contract --spec openapi/openapi.yaml` against a gateway started as `npm start` starts it (`paygate serve`:
 * sandbox mode, PGlite in a data directory, its worker running, responses validated as without NODE_ENV), with a
 * partner and a merchant credential and nothing else (issue 32, D270): it exits 0 and its coverage table has a 2xx for
 * every operation; every URL and e-mail address it sent names a reserved host (D273 contract checker sends only reserved hosts); its output has no colour when
 * not a terminal and its JUnit file is valid. The rate limit is raised through the environment, as a CI job would
 * (the sandbox's 25 requests per second would only make the run wait out 429s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreservedHosts } from '../../packages/contract-tests/src/spec-check/safety.js';
import { runCli } from '../../generators/src/cli/main.js';
import { seedPgliteDataDir } from '../../packages/reference/src/testing/pglite-template.js';
import { buildOnce } from '../support/build.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const partner = { id: `pk_test_${randomBytes(6).toString('hex')}`, secret: `ps_test_${randomBytes(18).toString('base64url')}` };
let gateway: ChildProcess | undefined;
let dataDir = '';
let baseUrl = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  await buildOnce();
  dataDir = await mkdtemp(path.join(tmpdir(), 'paygate-spec-check-'));
  await seedPgliteDataDir(dataDir); // its subject is the checker, not initdb (startup.test.ts's is)
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const { NODE_ENV: _unset, ...env } = process.env;
  gateway = spawn(process.execPath, [path.join(ROOT, 'generators/bin/paygate.js'), 'serve'], {
    cwd: ROOT,
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PAYGATE_DATA_DIR: dataDir,
      PAYGATE_PARTNER_CLIENT_ID: partner.id,
      PAYGATE_PARTNER_CLIENT_SECRET: partner.secret,
      PAYGATE_RATE_LIMIT: '1000000',
      DATABASE_URL: '',
    },
    stdio: 'ignore',
  });
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      if ((await fetch(`${baseUrl}/sdk/checkout.js`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('paygate serve did not answer within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);

afterAll(async () => {
  gateway?.kill('SIGTERM');
  await new Promise((resolve) => (gateway && gateway.exitCode === null ? gateway.once('exit', resolve) : resolve(undefined)));
  await rm(dataDir, { recursive: true, force: true });
});

describe('paygate contract --spec against the npm start gateway (issue 32)', () => {
  it('exits 0 with partner and merchant credentials, a 2xx for every operation, reserved hosts only', async () => {
    // the merchant credential a partner hands to its merchant (the README's first steps)
    const headers = { 'X-Client-ID': partner.id, 'X-Client-Secret': partner.secret, 'Content-Type': 'application/json' };
    const post = async (p: string, body?: string) => {
      const res = await fetch(`${baseUrl}${p}`, { method: 'POST', headers, ...(body ? { body } : {}) });
      expect(res.status, `POST ${p}`).toBeLessThan(300);
      return ((await res.json()) as { data: Record<string, string> }).data;
    };
    const merchant = await post('/partners/merchants/', await readFile(path.join(ROOT, 'examples/merchant.json'), 'utf8'));
    await post(`/sandbox/merchants/${merchant['id']}/kyc`, '{"status":"APPROVED"}');
    const creds = await post(`/partners/merchants/${merchant['id']}/credentials`);

    const sent: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = init?.body;
      sent.push(
        `${String(input)} ${JSON.stringify(init?.headers ?? {})} ${typeof body === 'string' ? body : body instanceof FormData ? JSON.stringify([...body.entries()].filter(([, v]) => typeof v === 'string')) : ''}`,
      );
      return realFetch(input, init);
    }) as typeof fetch;
    const out: string[] = [];
    const err: string[] = [];
    const junit = path.join(dataDir, 'reports/contract.xml');
    let code: number;
    try {
      code = await runCli(
        [
          'contract',
          '--spec',
          'openapi/openapi.yaml',
          '--base-url',
          baseUrl,
          '--auth',
          `partner:ClientId=${partner.id}`,
          '--auth',
          `partner:ClientSecret=${partner.secret}`,
          '--auth',
          `merchant:ClientId=${creds['client_id']}`,
          '--auth',
          `merchant:ClientSecret=${creds['client_secret']}`,
          '--tenant',
          'merchant',
          '--junit',
          junit,
        ],
        { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: ROOT },
      );
    } finally {
      globalThis.fetch = realFetch;
    }
    const stderr = err.join('');
    expect({ code, tail: stderr.slice(-3000) }).toMatchObject({ code: 0 });
    // the coverage table: every operation's row has a 2xx seen at least once
    const rows = out.join('').trim().split('\n').slice(1);
    expect(rows.length).toBe(36);
    const without2xx = rows.filter((row) => !/\s2\d\dx\d+/.test(row));
    expect(without2xx).toEqual([]);
    // a line per operation as it ran, and no colour codes in piped output
    expect(stderr.match(/^ok {4} \w+/gm)?.length).toBe(36);
    expect(stderr.includes('\u001b[')).toBe(false);
    // the JUnit file: one suite per operation, well formed
    const xml = await readFile(junit, 'utf8');
    expect(xml.match(/<testsuite /g)?.length).toBe(36);
    expect(xml.match(/<testsuite /g)?.length).toBe(xml.match(/<\/testsuite>/g)?.length);
    expect(xml).toMatch(/<testsuites name="paygate contract --spec" tests="\d+" failures="0">/);
    // nothing it sent names a host outside the reserved ones (or the target, on loopback)
    expect(sent.length).toBeGreaterThan(300);
    expect(unreservedHosts(sent.join('\n'))).toEqual([]);
  }, 300_000);
});
