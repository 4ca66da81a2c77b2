import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfig, type ReferenceConfig } from './core/config.js';
import { limitConnectionsPerAddress } from './http/connection-limits.js';
import { useCompactJsHeap } from './db/compact-heap.js';
import { createLogger, heldDestination } from './http/logger.js';
import type { ReferenceRuntime } from './runtime.js';
import type { Db } from './db/db.js';
import { markStartupStage, recordStartupStages, takeStartupStages } from './core/startup-stages.js';
import { DRAIN_MESSAGE, WORKER_SLOT_ENV } from './supervisor/primary.js';
import { parseServeArguments, resolveWorkerCount, ServeUsageError, shutdownTimeoutMs } from './supervisor/options.js';

export { parseServeArguments, ServeUsageError } from './supervisor/options.js';

export const USAGE = `paygate: the Paygate reference gateway (a stateful sandbox of the Paygate API)

Usage:
  paygate serve [--workers N|auto]  start the gateway (HTTP API, hosted checkout, webhook worker)
  paygate --help                    show this help

  --workers N|auto    run N gateway processes on this machine sharing one port (auto: one per core), under a
                      supervisor that restarts a worker that dies and drains them all on SIGTERM/SIGINT.
                      Needs PostgreSQL (DATABASE_URL). In a container run one process per container instead and
                      let the orchestrator restart it (liveness probe GET /healthz, readiness probe GET /readyz).

Environment:
  PAYGATE_WORKERS                the same as --workers (default 1: one process, no supervisor)
  PAYGATE_SHUTDOWN_TIMEOUT_MS    on SIGTERM/SIGINT, how long in-flight requests may take before their connections
                                   are closed (default 10000)
  PORT                           port to listen on (default 8080)
  HOST                           address to listen on (default 127.0.0.1: the sandbox prints credentials; use 0.0.0.0 in a container)
  PAYGATE_MODE                   sandbox (default) or production (production hides /sandbox/* and needs https webhooks)
  PAYGATE_PUBLIC_URL             absolute base URL clients reach the gateway at (default http://localhost:$PORT)
  DATABASE_URL                   PostgreSQL connection string; unset = embedded PGlite in PAYGATE_DATA_DIR
  DATABASE_DIRECT_URL            behind a transaction pooler (PgBouncer): a direct PostgreSQL URL for LISTEN (instant
                                   webhook wake-ups, credential invalidation); unset: LISTEN on DATABASE_URL unless it
                                   is a pooler, and credential changes are polled every 0.5 s
  PAYGATE_DB_LOCK_TIMEOUT_MS     longest wait for a locked row in a transaction (default 3000; then 503 + Retry-After)
  PAYGATE_DATA_DIR               data directory: PGlite database, uploaded documents, sandbox credentials (default ./.paygate)
  PAYGATE_PARTNER_CLIENT_ID      partner credential to accept (with PAYGATE_PARTNER_CLIENT_SECRET, >= 16 characters);
  PAYGATE_PARTNER_CLIENT_SECRET    in sandbox mode one is generated into <data dir>/sandbox-partner.json when unset
                                   (its secret is printed once, by the start that generates it)
  PAYGATE_WORKER_INTERVAL_MS     background worker poll interval (default 1000; new webhook events wake it at once)
  PAYGATE_WEBHOOK_RETRY_SCHEDULE webhook retry delays in seconds, comma-separated (default 5,300,1800,7200,18000,36000,36000)
  PAYGATE_WEBHOOK_TIMEOUT_MS     how long a webhook receiver may take before the attempt counts as failed (default 10000)
  PAYGATE_WEBHOOK_CONCURRENCY    webhook deliveries in flight per process (default 256)
  PAYGATE_WEBHOOK_ENDPOINT_CONCURRENCY  of those, at most this many to one endpoint (default 32)
  PAYGATE_SETTLEMENT_INTERVAL_SECONDS  production mode: seconds between scheduled settlement runs (default 86400)
  PAYGATE_SETTLEMENT_BATCH_SIZE  payments settled per transaction of a settlement run (default 1000)
  PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS allow|deny webhooks to private, loopback, link-local and metadata addresses
                                 (sandbox default allow; production always deny, checked when each delivery connects)
  PAYGATE_MASTER_KEY             32 random bytes (base64 or hex) that encrypt stored secrets; required in production mode
  LOG_LEVEL                      pino log level (default info)

Rate limits, proxies and connections:
  PAYGATE_RATE_LIMIT             requests per window and credential (public checkout routes: per client address);
                                   default 25 in sandbox mode, 100 in production (Stripe's test / live numbers)
  PAYGATE_RATE_WINDOW_SECONDS    the window (default 1 s); over the limit: 429 ERR_RATE_429 with Retry-After
  REDIS_URL                      e.g. redis://127.0.0.1:6379: every gateway process on this Redis shares one limit;
                                   unset, or while Redis is unreachable: each process limits on its own
  PAYGATE_REDIS_TIMEOUT_MS       how long one Redis command may take (default 500); a hung Redis costs a request at
                                   most this, once: the process then limits on its own until Redis answers again
  PAYGATE_REDIS_KEY_PREFIX       prefix of the rate-limit keys in Redis (default paygate:rl)
  PAYGATE_TRUST_PROXY            whose X-Forwarded-For names the client: the number of proxy hops in front (e.g. 1
                                   behind one load balancer) or their addresses/subnets (e.g. "loopback, 10.0.0.0/8");
                                   unset: the socket address is the client. true (anyone) is refused in production
  PAYGATE_DB_POOL_SIZE           PostgreSQL connections per process (default 4 per core, 4 to 32; with --workers N
                                   each worker's default is that of its share of the cores: keep N x pool size under
                                   PostgreSQL's max_connections)
  PAYGATE_TENANT_SHARE           requests of one merchant (or partner) credential using the database at once per
                                   process (default: the pool less a quarter, so others always get connections; 0 = off)
  PAYGATE_TENANT_QUEUE           more requests of that credential wait for a slot (default 64, at most 5 s each);
                                   beyond: 503 with Retry-After for that credential only
  PAYGATE_HEADERS_TIMEOUT_MS     time to receive the request headers (default 10000)
  PAYGATE_REQUEST_TIMEOUT_MS     time to receive the whole request (default 30000)
  PAYGATE_KEEP_ALIVE_TIMEOUT_MS  idle keep-alive connections close after (default 5000)
  PAYGATE_MAX_CONNECTIONS        open connections at most; more are refused (default 1000)
  PAYGATE_MAX_CONNECTIONS_PER_ADDRESS  open connections per client address (IPv6: per /64) at most; more are refused
                                   when accepted (default 100; 0 = no cap; proxies PAYGATE_TRUST_PROXY trusts are exempt)

Caches and memory:
  PAYGATE_CREDENTIAL_CACHE_TTL_MS  how long a process reuses a verified client secret (default 5000; 0 = never).
                                   Rotation and revocation reach every process when they commit (LISTEN/NOTIFY on
                                   PostgreSQL); the TTL bounds it only if that connection dies unnoticed
  PAYGATE_PGLITE_SHARED_BUFFERS  embedded database page cache (default 8MB; sizes like 512kB, 64MB, 1GB)
  PAYGATE_PGLITE_WORK_MEM        embedded database memory per sort or hash (default 2MB)
  PAYGATE_PGLITE_WASM_CODE       baseline (default: less memory) or optimizing (V8 optimizes hot database code too)
`;

export interface SandboxPartner {
  clientId: string;
  clientSecret: string;
  /** Where they are kept (undefined for an in-memory database: they last as long as the process). */
  file: string | undefined;
  created: boolean;
}

/**
 * The sandbox partner credential: `<dataDir>/sandbox-partner.json` (mode 0600) is read, or created with random
 * `pk_test_...` / `ps_test_...` values. For `memory://` data dirs nothing is written.
 */
export async function loadOrCreateSandboxPartner(dataDir: string): Promise<SandboxPartner> {
  const fresh = () => ({
    clientId: `pk_test_${randomBytes(12).toString('base64url')}`,
    clientSecret: `ps_test_${randomBytes(32).toString('base64url')}`,
  });
  if (dataDir.startsWith('memory://')) return { ...fresh(), file: undefined, created: true };
  const file = path.resolve(dataDir, 'sandbox-partner.json');
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { client_id?: unknown; client_secret?: unknown };
    if (typeof parsed.client_id === 'string' && typeof parsed.client_secret === 'string' && parsed.client_secret.length >= 16) {
      await chmod(file, 0o600).catch(() => undefined);
      return { clientId: parsed.client_id, clientSecret: parsed.client_secret, file, created: false };
    }
    throw new Error(`${file} does not hold client_id and client_secret; delete it to generate new sandbox credentials`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const creds = fresh();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify({ client_id: creds.clientId, client_secret: creds.clientSecret }, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  return { ...creds, file, created: true };
}

/**
 * The start-up lines about the sandbox partner credential. The secret is printed once, by the start that generated it
 * (whatever HOST is); later starts print the client id and where the secret is kept, so it does not land in every log
 * (D39). An in-memory database gets a new credential, printed, on every start: there is nowhere else to find it.
 */
export function sandboxPartnerLines(partner: SandboxPartner): string[] {
  if (!partner.created) {
    return [
      `  Sandbox partner credentials: X-Client-ID ${partner.clientId}`,
      `    X-Client-Secret: shown when it was generated; read it from ${partner.file ?? 'the credentials file'} (client_secret, mode 0600).`,
      '    Delete the file to generate new ones (shown once, at that start).',
    ];
  }
  return [
    '  Sandbox partner credentials (send as headers; the secret is shown this once):',
    `    X-Client-ID:     ${partner.clientId}`,
    `    X-Client-Secret: ${partner.clientSecret}`,
    partner.file
      ? `  Generated and saved in ${partner.file} (mode 0600); later starts print only the client id.`
      : '  The database is in memory: these credentials last as long as this process.',
  ];
}

function describeDatabase(config: ReferenceConfig): string {
  if (config.databaseUrl) {
    try {
      const u = new URL(config.databaseUrl);
      return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname} (DATABASE_URL)`;
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  return config.dataDir.startsWith('memory://') ? 'in-memory PGlite (nothing is kept)' : `PGlite at ${path.resolve(config.dataDir)}`;
}

function startupHint(err: unknown, config: ReferenceConfig): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = e?.code ?? '';
  if (
    config.databaseUrl &&
    /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|28P01|28000|3D000/.test(`${code} ${String(e?.message)}`)
  ) {
    return (
      `Could not connect to the database named by DATABASE_URL (${describeDatabase(config)}): ${e.message}\n` +
      'Check that PostgreSQL is running and reachable and that DATABASE_URL (host, port, user, password, database) is right, ' +
      'or unset DATABASE_URL to use the embedded PGlite database.'
    );
  }
  return `Start-up failed: ${e?.message ?? String(err)}`;
}

/**
 * A `ReferenceRuntime` whose properties are read from `get()` on each access: lets the HTTP app be built before the
 * database is open. Reading it before then is a bug and fails loudly.
 */
function lateBoundRuntime(get: () => ReferenceRuntime | undefined): ReferenceRuntime {
  return new Proxy({} as ReferenceRuntime, {
    get(_target, key) {
      const runtime = get();
      if (runtime === undefined) throw new Error(`paygate: runtime.${String(key)} read before the database was opened`);
      return Reflect.get(runtime, key, runtime);
    },
    has: (_target, key) => key in (get() ?? {}),
  });
}

function listen(server: Server, port: number, host: string, backlog: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host, backlog });
  });
}

/** serve()'s start-up was stopped before it listened, on purpose (its `signal` aborted; D360). */
export class StartAbortedError extends Error {
  constructor() {
    super('the start-up was stopped before listening');
    this.name = 'StartAbortedError';
  }
}

export function parsePort(raw: string | undefined): number {
  const value = raw === undefined || raw === '' ? '8080' : raw;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number 0..65535, got ${JSON.stringify(value)}`);
  return port;
}

/** `paygate serve`: resolves once the server is listening; exits the process on SIGINT/SIGTERM after a graceful stop. */
export async function serve(
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  options: {
    /** Run the scheduled jobs (default true; one worker of a --workers fleet, D101). */
    scheduledJobs?: boolean;
    /** Aborted: stop the start-up before listening (closing what was opened) with a StartAbortedError (D360). */
    signal?: AbortSignal;
  } = {},
): Promise<{ server: Server; runtime: ReferenceRuntime; stop: () => Promise<void> }> {
  recordStartupStages();
  markStartupStage('cli modules loaded');
  const config = loadConfig(env);
  const drainMs = shutdownTimeoutMs(env);
  const port = parsePort(env['PORT']);
  const mode = config.sandbox ? 'sandbox' : 'production';
  out(`Paygate reference gateway, ${mode} mode`);
  if (config.trustProxy === true) {
    // refused in production mode (D98); the sandbox allows it, loudly
    out('  WARNING: PAYGATE_TRUST_PROXY=true believes X-Forwarded-For from anyone: every client can choose the address its');
    out("  rate limit and the logs see. Set the number of proxy hops (e.g. 1) or your proxies' subnets instead.");
  }

  let partner: SandboxPartner | undefined;
  if (!config.partnerClientId && !config.partnerClientSecret && config.sandbox) {
    partner = await loadOrCreateSandboxPartner(config.dataDir);
  }
  markStartupStage('configuration read');

  out(`- opening the database: ${describeDatabase(config)}`);
  out('- applying migrations');
  // Lines logged while starting (the sandbox's first start logs its new master key) wait until the banner below is
  // complete: one human block, then JSON lines (D134).
  const logOutput = heldDestination();
  const logger = createLogger({ destination: logOutput });
  // D173: the database starts opening first, before the module graphs of the app (express, validators, handlers)
  // and of the runtime (services, worker) load: PGlite's WebAssembly compiles on V8's background threads and its files
  // are read while those modules load, and PGlite's start-up garbage is collected while the heap is still small
  // (measured: ~10% less CPU and ~15% less time to the first answer than opening it after them). This file imports
  // nothing of @paygate/server for the same reason. Production without a master key opens nothing: openReference
  // refuses that start before touching the database, as before.
  let dbOpening: Promise<Db> | undefined;
  if (config.masterKey || config.sandbox) {
    // the data dir as resolveMasterKey makes it for the sandbox key file (0700), before PGlite's open could make it
    if (!config.masterKey && !config.databaseUrl && !config.dataDir.startsWith('memory://'))
      await mkdir(path.resolve(config.dataDir), { recursive: true, mode: 0o700 });
    // the driver's modules alone first (not interleaved with the other graphs'), so that PGlite starts at once
    const { loadDriver, openConfiguredDb } = await import('./db/open.js');
    await loadDriver(config.databaseUrl);
    dbOpening = openConfiguredDb(config);
    dbOpening.catch(() => undefined); // taken over by openReference below; never an unhandled rejection meanwhile
  }
  // The app is built while the database opens, so the validator's spec loading and pre-processing overlaps PGlite's
  // start-up. The app gets the runtime late-bound: it only dereferences it per request, and no request arrives before
  // `listen`, which waits for the database.
  let opened: ReferenceRuntime | undefined;
  const appReady = import('./app.js').then(({ createReferenceApp }) => {
    markStartupStage('app modules loaded');
    const app = createReferenceApp(
      lateBoundRuntime(() => opened),
      { logger, trustProxy: config.trustProxy },
    );
    markStartupStage('app built');
    return app;
  });
  appReady.catch(() => undefined); // awaited below; never an unhandled rejection while the database opens
  let runtime: ReferenceRuntime;
  try {
    const { openReference } = await import('./runtime.js').catch(async (err: unknown) => {
      await dbOpening?.then(
        (db) => db.close(),
        () => undefined,
      );
      throw err;
    });
    markStartupStage('runtime modules loaded');
    runtime = await openReference(config, {
      logger,
      scheduledJobs: options.scheduledJobs ?? true,
      ...(dbOpening ? { db: dbOpening } : {}),
    });
  } catch (err) {
    logOutput.release();
    throw new Error(startupHint(err, config), { cause: err });
  }
  opened = runtime;
  let app: Awaited<typeof appReady>;
  try {
    if (partner) {
      const { ensurePartnerCredential } = await import('./credentials/service.js');
      await ensurePartnerCredential(runtime.deps, { clientId: partner.clientId, clientSecret: partner.clientSecret });
      markStartupStage('sandbox partner credential stored');
    }
    app = await appReady;
  } catch (err) {
    logOutput.release();
    await runtime.close();
    throw err;
  }

  out(
    `- starting the background worker (every ${config.workerIntervalMs} ms: expiries, ${config.sandbox ? 'sandbox automation, ' : ''}webhook deliveries)`,
  );
  runtime.worker.start();

  if (config.redisUrl) {
    out('- connecting to Redis for shared rate limits (REDIS_URL)');
    if (!(await runtime.rateLimiter.ready())) out('  Redis is not reachable yet: limits are per process until it is (see the log)');
  }

  // Slow or idle clients cannot hold the server: the request headers within headersTimeout, the whole request
  // within requestTimeout, idle keep-alive sockets closed after keepAliveTimeout, at most maxConnections sockets.
  const http = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // how often Node looks for requests past those timeouts (its default, 30 s, would let a slow client stay 30 s more)
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(config.http.headersTimeoutMs / 2))),
    },
    app,
  );
  http.maxConnections = config.http.maxConnections;
  // D173: loaded with the app's graph (@paygate/server), not before the database starts opening
  const { answerMalformedRequests } = await import('./http/client-error.js');
  answerMalformedRequests(http);
  // ...and one address cannot hold them all (D96); the proxies PAYGATE_TRUST_PROXY trusts carry every client's traffic
  const trusted = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  limitConnectionsPerAddress(http, { max: config.http.maxConnectionsPerAddress, exempt: (address) => trusted(address, 0), logger });
  const host = env['HOST'] || '127.0.0.1';
  if (options.signal?.aborted) {
    // drain asked for while starting (D360): nothing was answered yet, so nothing is listened for
    logOutput.release();
    await runtime.close();
    throw new StartAbortedError();
  }
  out(`- listening on ${host}:${port}`);
  try {
    // An accept queue that holds a burst the size of the connection cap (Node's default is 511; the kernel caps it at
    // net.core.somaxconn): a burst of connections from one address must not overflow it and drop other clients' SYNs
    // before the per-address cap can refuse them (D96).
    await listen(http, port, host, Math.max(511, 2 * config.http.maxConnections));
  } catch (err) {
    logOutput.release();
    await runtime.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new Error(`Port ${port} is already in use: set PORT to a free port (e.g. PORT=${port + 1} paygate serve).`);
    if (code === 'EACCES') throw new Error(`Not allowed to listen on port ${port}: set PORT to a port above 1023.`);
    throw err;
  }
  markStartupStage('listening');
  logger.debug(
    { processStartedAt: performance.timeOrigin, startupStages: takeStartupStages() },
    'start-up stages (ms and CPU ms since the process started)',
  );
  // The embedded database's compact heap, now that start-up is over (D86).
  if (!config.databaseUrl) useCompactJsHeap();

  const base = config.publicBaseUrl;
  out('');
  out(`Paygate is running (${mode}).`);
  out(`  Base URL:  ${base}`);
  out(`  Docs:      ${base}/docs/`);
  out(`  Health:    ${base}/healthz`);
  out(`  Checkout:  ${base}/sdk/checkout.js`);
  if (config.partnerClientId) {
    out(`  Partner credentials: X-Client-ID ${config.partnerClientId} (secret from PAYGATE_PARTNER_CLIENT_SECRET)`);
  } else if (partner) {
    for (const line of sandboxPartnerLines(partner)) out(line);
  } else {
    out('  WARNING: production mode without PAYGATE_PARTNER_CLIENT_ID / PAYGATE_PARTNER_CLIENT_SECRET:');
    out('  no partner credential is configured, so only credentials already in the database can call the API.');
  }
  if (!base.includes(`:${port}`) && base.startsWith('http://localhost')) {
    out(`  Note: PAYGATE_PUBLIC_URL (${base}) does not name port ${port}; links in responses use it as given.`);
  }
  out('Press Ctrl+C to stop.');
  logOutput.release();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      runtime.readiness.markDraining();
      // Draining: a request that still arrives on a kept-alive connection is answered with `Connection: close`, and a
      // connection is closed as soon as it is idle, so clients reconnect to a process that is not stopping instead of
      // holding this one open until the bound (D100).
      http.prependListener('request', (_req, res) => {
        res.shouldKeepAlive = false;
      });
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      const sweep = setInterval(() => http.closeIdleConnections(), 100);
      const force = setTimeout(() => http.closeAllConnections(), drainMs);
      force.unref();
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
      await runtime.close();
    })();
    return stopping;
  };
  return { server: http, runtime, stop };
}

/**
 * One gateway process: alone (`--workers 1`), or a worker of the supervisor (`slot` set), which prints nothing of its
 * own (the supervisor prints the start-up lines once) and also drains when the supervisor asks or goes away.
 */
async function runServe(slot?: number): Promise<number | undefined> {
  const inCluster = slot !== undefined;
  const out = inCluster ? () => undefined : (l: string) => process.stdout.write(`${l}\n`);
  const who = inCluster ? `paygate worker ${slot} (pid ${process.pid})` : 'paygate';
  // Drain that always drains (D360): the handlers exist before the start-up begins, so a drain asked for while the
  // gateway starts (the supervisor's SIGTERM or message to a worker it was restarting) is not lost: the start stops
  // before listening (nothing was answered), or the drain begins as soon as the server is up.
  let started: Awaited<ReturnType<typeof serve>> | undefined;
  let drainWhy: string | undefined;
  const startAborted = new AbortController();
  const drain = (why: string) => {
    if (drainWhy !== undefined) return;
    drainWhy = why;
    if (!started) {
      startAborted.abort();
      return;
    }
    const running = started;
    out(`\n${why}: no new connections; finishing in-flight requests, flushing the worker, closing the database...`);
    running.stop().then(
      () => {
        out('Stopped.');
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`${who}: error while stopping: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`${who}: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    drain(`${signal} received`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (inCluster) {
    process.on('message', (message: unknown) => {
      if ((message as typeof DRAIN_MESSAGE | undefined)?.paygate === DRAIN_MESSAGE.paygate) drain('the supervisor asked to stop');
    });
    // the supervisor is gone (killed): no one would restart or stop this worker, so it stops itself
    process.on('disconnect', () => drain('the supervisor went away'));
  }
  try {
    // slot 0 of a fleet runs the scheduled jobs; every worker drains the queues (D101)
    started = await serve(process.env, out, { scheduledJobs: slot === undefined || slot === 0, signal: startAborted.signal });
  } catch (err) {
    if (err instanceof StartAbortedError) {
      out(`\n${drainWhy ?? 'Stopped'} while starting: stopped before listening.`);
      process.exit(0);
    }
    process.stderr.write(`${who}: ${(err as Error).message}\n`);
    if (inCluster) process.exit(1);
    return 1;
  }
  // a drain asked for between the server's listen and now
  if (drainWhy !== undefined) {
    const why = drainWhy;
    drainWhy = undefined;
    drain(why);
  }
  return undefined;
}

/** CLI entry (bin/paygate.js). Returns an exit code, or undefined while the server runs. */
export async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === 'serve') {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(USAGE);
      return 0;
    }
    // a worker forked by our supervisor (not one of another process manager's cluster: that runs as one process)
    const slot = process.env[WORKER_SLOT_ENV];
    if (cluster.isWorker && slot !== undefined) return runServe(Number(slot));
    let workers: number;
    try {
      workers = resolveWorkerCount(parseServeArguments(rest).workers, process.env);
    } catch (err) {
      process.stderr.write(`paygate: ${(err as Error).message}\n`);
      return err instanceof ServeUsageError ? 2 : 1;
    }
    if (workers === 1) return runServe();
    const { runSupervisor } = await import('./supervisor/run.js');
    return runSupervisor(workers, process.env, fileURLToPath(import.meta.url));
  }
  process.stderr.write(`paygate: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 1;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`paygate: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
