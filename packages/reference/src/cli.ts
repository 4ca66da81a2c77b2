/**
 * The reference gateway's command line (`paygate serve`, bin/paygate.js): the usage text and the command dispatch.
 * A start is composed in startup/ (serve.ts: configuration, database, app, HTTP server, banner; gateway-process.ts:
 * signals and drain of one process); several processes are the supervisor's (supervisor/).
 * Start-up order (D173 database opened while modules load): this file imports nothing of @paygate/server, so the database starts opening before the
 * app's module graph loads.
 */
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WORKER_SLOT_ENV } from './supervisor/primary.js';
import { parseServeArguments, resolveWorkerCount, ServeUsageError } from './supervisor/options.js';
import { runGatewayProcess } from './startup/gateway-process.js';

export { parseServeArguments, ServeUsageError } from './supervisor/options.js';
export { serve, StartAbortedError } from './startup/serve.js';
export { parsePort } from './startup/http-server.js';
export { loadOrCreateSandboxPartner, sandboxPartnerLines, type SandboxPartner } from './startup/sandbox-partner.js';

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
    if (cluster.isWorker && slot !== undefined) return runGatewayProcess(Number(slot));
    let workers: number;
    try {
      workers = resolveWorkerCount(parseServeArguments(rest).workers, process.env);
    } catch (err) {
      process.stderr.write(`paygate: ${(err as Error).message}\n`);
      return err instanceof ServeUsageError ? 2 : 1;
    }
    if (workers === 1) return runGatewayProcess();
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
