/**
 * Real gateway processes for the fault tests: `node packages/reference/bin/paygate.js serve` spawned with its own env
 * (PORT, DATABASE_URL, partner credentials, worker interval, retry schedule), on 127.0.0.1, plus throw-away
 * PostgreSQL databases. Every process started here is tracked and killed by `killAllGateways()` (call it in
 * afterAll); a process 'exit' hook kills leftovers too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../packages/reference/src/testing/test-db.js';
import { buildOnce } from '../../support/build.js';
import { sleep } from './api.js';
import { freePort } from './receiver.js';

/** One master key for every gateway process of this test run. */
const SHARED_MASTER_KEY = randomBytes(32).toString('base64');

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = path.join(REPO_ROOT, 'packages/reference/bin/paygate.js');

/** The admin URL the fault suites need; when unset they are not registered at all. */
export function adminDatabaseUrl(): string | undefined {
  return process.env['PAYGATE_TEST_DATABASE_URL'] || undefined;
}

/** One loud line (stderr) for a fault suite that did not run. */
export function reportNotRun(suite: string): void {
  console.error(
    `\n!!!!! FAULT TESTS DID NOT RUN: ${suite} needs PostgreSQL; set PAYGATE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres !!!!!\n`,
  );
}

export type TestDatabase = ThrowawayDatabase;

/** A fresh database on the admin URL's server; `drop()` removes it. */
export function createTestDatabase(adminUrl: string, prefix = 'paygate_faults'): Promise<TestDatabase> {
  return createThrowawayDatabase(adminUrl, prefix);
}

/** Run a query on a test database (inspection of state the API does not expose, e.g. delivery attempts). */
export async function queryDb<T extends object>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query(sql, params);
    return res.rows as T[];
  } finally {
    await client.end();
  }
}

/** dist/ current, and the gateway CLI built (the lock-serialised `npm run build` of test/support/build.ts). */
export async function ensureBuilt(): Promise<void> {
  await buildOnce();
  if (!existsSync(CLI)) throw new Error(`the gateway CLI ${CLI} does not exist`);
}

export interface GatewayProcess {
  name: string;
  baseUrl: string;
  port: number;
  proc: ChildProcess;
  /** stdout + stderr lines so far (the gateway logs JSON lines). */
  output: string[];
  exited: Promise<number | null>;
  /** SIGKILL (kill -9) and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<GatewayProcess>();
process.once('exit', () => {
  for (const g of live) g.proc.kill('SIGKILL');
});

export interface SpawnGatewayOptions {
  name: string;
  databaseUrl: string;
  partner: { clientId: string; clientSecret: string };
  port?: number;
  workerIntervalMs?: number;
  retrySchedule?: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Arguments after `serve` (e.g. `--workers 2`). */
  args?: string[];
}

/** Spawn `paygate serve` and wait until it answers GET /sdk/checkout.js. */
export async function spawnGateway(options: SpawnGatewayOptions): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  // Uploaded documents live in the data dir even with PostgreSQL: keep them out of the repository.
  const dataDir = await mkdtemp(path.join(tmpdir(), 'paygate-faults-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    PAYGATE_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PAYGATE_MODE: 'sandbox',
    // Processes sharing one database must share the master key that seals its secrets (each has its own data dir).
    PAYGATE_MASTER_KEY: SHARED_MASTER_KEY,
    PAYGATE_PUBLIC_URL: baseUrl,
    PAYGATE_PARTNER_CLIENT_ID: options.partner.clientId,
    PAYGATE_PARTNER_CLIENT_SECRET: options.partner.clientSecret,
    PAYGATE_WORKER_INTERVAL_MS: String(options.workerIntervalMs ?? 100),
    // fault tests send bursts on purpose: the sandbox's 25 requests per second would refuse them (tests that check
    // the limit set their own)
    PAYGATE_RATE_LIMIT: '1000000',
    // ...and from one address (127.0.0.1), hundreds of connections at once: no per-address cap (D96; the test of the
    // cap sets it)
    PAYGATE_MAX_CONNECTIONS_PER_ADDRESS: '0',
    ...(options.retrySchedule ? { PAYGATE_WEBHOOK_RETRY_SCHEDULE: options.retrySchedule } : {}),
    ...options.env,
  };
  const proc = spawn(process.execPath, [CLI, 'serve', ...(options.args ?? [])], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') output.push(line);
    if (output.length > 20_000) output.splice(0, output.length - 20_000);
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    proc.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      void rm(dataDir, { recursive: true, force: true }).finally(() => resolve(exitCode ?? null));
    });
  });
  const gateway: GatewayProcess = {
    name: options.name,
    baseUrl,
    port,
    proc,
    output,
    exited,
    async kill9() {
      if (exitCode === undefined) proc.kill('SIGKILL');
      await exited;
      live.delete(gateway);
    },
    async stop(graceMs = 5_000) {
      if (exitCode === undefined) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(gateway);
    },
  };
  live.add(gateway);

  // Bounded, but sized for a busy machine: under the whole suite (load ~8 on 2 cores) a gateway's start (modules,
  // the validator's spec compile, migrations) has taken over 20 s; quiet it takes about 2 s.
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const startedAt = Date.now();
  const deadline = startedAt + readyTimeoutMs;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`${options.name} exited (${String(exitCode)}) before it was ready:\n${output.slice(-30).join('\n')}`);
    }
    try {
      const res = await fetch(`${baseUrl}/sdk/checkout.js`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return gateway;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await gateway.kill9();
      throw new Error(
        `${options.name} did not become ready on ${baseUrl} in ${String(Date.now() - startedAt)} ms:\n${output.slice(-30).join('\n')}`,
      );
    }
    await sleep(100);
  }
}

/** Kill (SIGKILL) every gateway process this test file started that is still running. */
export async function killAllGateways(): Promise<void> {
  await Promise.all([...live].map((g) => g.kill9()));
}

export function partnerCredentials(): { clientId: string; clientSecret: string } {
  return { clientId: `partner_${randomBytes(6).toString('hex')}`, clientSecret: `ps_${randomBytes(24).toString('base64url')}` };
}
