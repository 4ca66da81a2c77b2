/**
 * A real PgBouncer in TRANSACTION mode in front of the test PostgreSQL (D353, "Tests through a real PgBouncer"): the
 * pooler production deployments put between the gateway and PostgreSQL. Debian's `pgbouncer` package (1.18) with a
 * stock configuration: no `ignore_startup_parameters`, no prepared-statement support (1.21+), no LISTEN/NOTIFY
 * across transactions; every database of the server behind it (`* = host=... port=...`), trust authentication.
 *
 * Missing binary: the suites that need it are skipped with the reason, unless PAYGATE_TEST_PGBOUNCER=1 (set by
 * .ci/run, which installs it), which makes it a failure, as REQUIRE_BROWSER=1 does for Chromium.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Set to 1 where PgBouncer must be present (CI): a missing binary fails instead of skipping. */
export const REQUIRE_PGBOUNCER_ENV = 'PAYGATE_TEST_PGBOUNCER';

const CANDIDATES = [process.env['PGBOUNCER_PATH'], '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** The pgbouncer binary (PGBOUNCER_PATH, else the Debian package's), or undefined. */
export function pgbouncerBinary(): string | undefined {
  for (const candidate of CANDIDATES) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/**
 * Why the PgBouncer suites cannot run here (undefined: they can). Throws when PAYGATE_TEST_PGBOUNCER=1 and the binary
 * is missing: in CI a missing pooler is a failure, not a skip.
 */
export function pgbouncerSkipReason(): string | undefined {
  if (pgbouncerBinary() !== undefined) return undefined;
  const reason = 'pgbouncer is not installed (apt-get install -y pgbouncer, or set PGBOUNCER_PATH)';
  if (process.env[REQUIRE_PGBOUNCER_ENV] === '1') throw new Error(`${REQUIRE_PGBOUNCER_ENV}=1 but ${reason}`);
  return reason;
}

export interface PgBouncer {
  /** 127.0.0.1 port PgBouncer listens on. */
  port: number;
  /** `url` (a PostgreSQL URL of the server behind it) with host and port replaced by PgBouncer's. */
  pooled(url: string): string;
  /** What PgBouncer wrote (stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartPgBouncerOptions {
  /** Server connections per database and user (default 20). */
  poolSize?: number;
  /** Extra `[pgbouncer]` settings, e.g. `{ ignore_startup_parameters: 'options' }`. */
  settings?: Record<string, string>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Start PgBouncer in transaction mode in front of the server of `serverUrl` (e.g. PAYGATE_TEST_DATABASE_URL). */
export async function startPgBouncer(serverUrl: string, options: StartPgBouncerOptions = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer, or set PGBOUNCER_PATH)');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, server, user, options);
    } catch (err) {
      // the free port was taken between the probe and PgBouncer's bind: try another
      if (attempt >= 3) throw err;
    }
  }
}

async function startOnce(binary: string, server: URL, user: string, options: StartPgBouncerOptions): Promise<PgBouncer> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'paygate-pgbouncer-'));
  const settings: Record<string, string> = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: path.join(dir, 'userlist.txt'),
    pool_mode: 'transaction',
    default_pool_size: String(options.poolSize ?? 20),
    max_client_conn: '2000',
    // tests drop their databases WITH (FORCE): PgBouncer must not hold a dead server connection for long
    server_check_delay: '0',
    log_connections: '0',
    log_disconnections: '0',
    ...options.settings,
  };
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || '5432'}`,
    '',
    '[pgbouncer]',
    ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
    '',
  ].join('\n');
  const configFile = path.join(dir, 'pgbouncer.ini');
  await writeFile(configFile, ini);
  await writeFile(settings['auth_file']!, `"${user}" ""\n`);
  // PgBouncer refuses to run as root: it then runs as nobody, who must read the configuration
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dir, 0o755);
    await chmod(configFile, 0o644);
    await chmod(settings['auth_file']!, 0o644);
  }
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'nobody'] : []), configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (c: Buffer) => {
    output = (output + c.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  const stop = async () => {
    if (!exited) {
      child.kill('SIGINT'); // PgBouncer: SIGINT = safe shutdown, SIGTERM = immediate; either ends the tests' sessions
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exit;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const pooled = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  // ready when a session through it answers
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`pgbouncer exited before it was ready:\n${output}`);
    }
    const client = new pg.Client({ connectionString: pooled(server.toString()), connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not accept sessions on 127.0.0.1:${port}: ${String(err)}\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { port, pooled, output: () => output, stop };
}
