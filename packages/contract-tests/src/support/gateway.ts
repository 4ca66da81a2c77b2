/**
 * Test harness: a running Paygate gateway for contract, browser and fault tests.
 *
 * - In-process (default): boots the reference gateway (`openReference` + `createReferenceApp`) on 127.0.0.1:0 with a
 *   fresh database (`pglite`: in-memory PGlite; `postgres`: a database created on PAYGATE_TEST_DATABASE_URL and
 *   dropped on close) and seeded partner credentials. The background worker is NOT started: drive it with
 *   `gateway.runtime.worker.tick()`.
 * - Remote: when PAYGATE_CONTRACT_BASE_URL is set, nothing is booted; the harness points at that deployment with
 *   PAYGATE_CONTRACT_CLIENT_ID / PAYGATE_CONTRACT_CLIENT_SECRET (partner credentials). `runtime` is then null, so
 *   tests needing the worker or fault injection must check `gateway.runtime` (see `requireRuntime`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { answerMalformedRequests, loadConfig, openReference, type Db, type ReferenceRuntime } from '@paygate/reference';
import type { Logger } from '@paygate/server';
import { createReferenceApp, type ReferenceAppOptions } from '@paygate/reference/app';
import { createMigratedDatabase, pooledRun, usePgliteTemplate } from '@paygate/reference/testing';

export type GatewayTarget = 'pglite' | 'postgres';

export interface StartGatewayOptions {
  target: GatewayTarget;
  /** Extra environment for `loadConfig` (e.g. PAYGATE_MODE, PAYGATE_WEBHOOK_RETRY_SCHEDULE). */
  env?: Record<string, string>;
  /** Start the background worker's polling loop (default false: tests call `runtime.worker.tick()`). */
  startWorker?: boolean;
  /** Validate the gateway's own responses inside the app (default: the app's default; the contract suite passes false and validates independently). */
  validateResponses?: boolean;
  /** Rate limit of the in-process app (default: effectively none; see PAYGATE_RATE_LIMIT below). */
  rateLimit?: ReferenceAppOptions['rateLimit'];
  /** Logger of the in-process app (default: silent). */
  logger?: Logger;
  /** Directory of the static /docs site (default: the app's, `<repo>/docs/site`). */
  docsDir?: string;
}

export interface Gateway {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43121 */
  baseUrl: string;
  /** Partner credentials (seeded in-process; from PAYGATE_CONTRACT_CLIENT_ID/SECRET for a remote deployment). */
  partner: { clientId: string; clientSecret: string };
  /** The in-process runtime (db, clock, worker); null when targeting a remote deployment. */
  runtime: ReferenceRuntime | null;
  /** Which database the in-process gateway uses, or 'remote'. */
  target: GatewayTarget | 'remote';
  /** Whether sandbox-only operations are expected to exist. */
  sandbox: boolean;
  /** Fault injection for the in-process gateway (null when remote). */
  faults: Faults | null;
  close(): Promise<void>;
}

/**
 * Per-request fault injection (in-process only), keyed by test-only request headers so parallel requests are not
 * affected:
 * - `x-paygate-test-fault: db` — every database call of that request after authentication throws (=> 500 path);
 * - `x-paygate-test-fault: db-lost` — the same calls fail as pg's do when the connection is cut ("Connection terminated
 *   unexpectedly") (=> 503 path);
 * - `x-paygate-test-fault: db-down` — every database call fails as when the database refuses connections
 *   (ECONNREFUSED), credential checks included (=> 503, never 401: flush the credential cache first);
 * - `x-paygate-test-hold: <token>` — the request stops once its Idempotency-Key is claimed, before its transaction
 *   opens, until `faults.release(token)` (=> a same-key request meanwhile sees it in flight: 409).
 */
export interface Faults {
  readonly FAULT_HEADER: 'x-paygate-test-fault';
  readonly HOLD_HEADER: 'x-paygate-test-hold';
  /** Resolves once a request with this hold token is parked. */
  held(token: string): Promise<void>;
  release(token: string): void;
  /** Number of database calls failed on purpose so far. */
  readonly injected: number;
}

interface RequestState {
  headers: IncomingHttpHeaders;
  claimed: boolean;
}

type DbLike = ReferenceRuntime['db'];

/** Wrap the runtime's Db object in place (runtime.db and runtime.deps.db are the same object). */
function installFaults(db: DbLike, als: AsyncLocalStorage<RequestState>): Faults {
  const parked = new Map<string, { parked: Promise<void>; markParked: () => void; gate: Promise<void>; open: () => void }>();
  const slot = (token: string) => {
    let s = parked.get(token);
    if (!s) {
      let markParked!: () => void;
      let open!: () => void;
      const p = new Promise<void>((r) => (markParked = r));
      const gate = new Promise<void>((r) => (open = r));
      s = { parked: p, markParked, gate, open };
      parked.set(token, s);
    }
    return s;
  };
  let injected = 0;
  const before = async (sql: string | undefined): Promise<void> => {
    const state = als.getStore();
    if (!state) return;
    const fault = state.headers['x-paygate-test-fault'];
    const credentialCheck = sql !== undefined && /\bcredentials\b/.test(sql);
    if (fault === 'db' && !credentialCheck) {
      injected++;
      throw new Error('injected database fault (contract test)');
    }
    if (fault === 'db-lost' && !credentialCheck) {
      injected++;
      throw new Error('Connection terminated unexpectedly'); // what pg throws for a connection cut mid-request
    }
    if (fault === 'db-down') {
      injected++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
    }
    const token = state.headers['x-paygate-test-hold'];
    if (typeof token === 'string' && state.claimed) {
      const s = slot(token);
      s.markParked();
      await s.gate;
    }
  };
  const origQuery = db.query.bind(db);
  const origTransaction = db.transaction.bind(db);
  const origScope = db.transactionScope.bind(db);
  Object.assign(db, {
    query: async (sql: string, params?: readonly unknown[]) => {
      await before(sql);
      return origQuery(sql, params);
    },
    transaction: async <T>(fn: (tx: Db) => Promise<T>) => {
      await before(undefined);
      return origTransaction(fn);
    },
    // The idempotency wrapper opens the request's transaction right after claiming its key in the process: a held
    // request parks there, in flight but holding no connection (PGlite has only one), so a same-key request meanwhile
    // gets its 409 and other requests go on.
    transactionScope: async <T>(fn: (tx: Db) => Promise<T>) => {
      const state = als.getStore();
      if (state) state.claimed = true;
      await before(undefined);
      return origScope(fn);
    },
  });
  return {
    FAULT_HEADER: 'x-paygate-test-fault',
    HOLD_HEADER: 'x-paygate-test-hold',
    held: (token) => slot(token).parked,
    release: (token) => slot(token).open(),
    get injected() {
      return injected;
    },
  };
}

/** Targets to parameterise suites over: pglite always, postgres when PAYGATE_TEST_DATABASE_URL is set; 'remote' alone when PAYGATE_CONTRACT_BASE_URL is set. */
export function gatewayTargets(): GatewayTarget[] {
  if (remoteConfig()) return ['pglite']; // the value is ignored by startGateway in remote mode; one run only
  if (pooledRun()) return ['postgres']; // npm run test:pooler: PostgreSQL through PgBouncer only (D353 tests through a real PgBouncer)
  return process.env['PAYGATE_TEST_DATABASE_URL'] ? ['pglite', 'postgres'] : ['pglite'];
}

/** True when the suite targets a deployment given by PAYGATE_CONTRACT_BASE_URL. */
export function isRemote(): boolean {
  return remoteConfig() !== undefined;
}

function remoteConfig(): { baseUrl: string; clientId: string; clientSecret: string; sandbox: boolean } | undefined {
  const baseUrl = process.env['PAYGATE_CONTRACT_BASE_URL'];
  if (!baseUrl) return undefined;
  const clientId = process.env['PAYGATE_CONTRACT_CLIENT_ID'];
  const clientSecret = process.env['PAYGATE_CONTRACT_CLIENT_SECRET'];
  if (!clientId || !clientSecret) {
    throw new Error(
      'PAYGATE_CONTRACT_BASE_URL is set: also set PAYGATE_CONTRACT_CLIENT_ID and PAYGATE_CONTRACT_CLIENT_SECRET (partner credentials)',
    );
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    clientId,
    clientSecret,
    sandbox: (process.env['PAYGATE_CONTRACT_MODE'] ?? 'sandbox') !== 'production',
  };
}

/** The runtime, or a clear error for tests that cannot run against a remote deployment. */
export function requireRuntime(gw: Gateway): ReferenceRuntime {
  if (!gw.runtime) throw new Error('This check needs the in-process gateway (PAYGATE_CONTRACT_BASE_URL is set)');
  return gw.runtime;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const remote = remoteConfig();
  if (remote) {
    return {
      baseUrl: remote.baseUrl,
      partner: { clientId: remote.clientId, clientSecret: remote.clientSecret },
      runtime: null,
      target: 'remote',
      sandbox: remote.sandbox,
      faults: null,
      close: async () => undefined,
    };
  }

  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        /* best effort */
      }
    }
  };

  try {
    // Idle keep-alive connections stay open until the harness closes (Node's default closes them after 5 s). Why: the
    // client and this server share one event loop, so a test that computes for longer than that between two requests
    // (fast-check building arbitraries on a busy machine) reuses a socket whose close is already due; the server's
    // timer then fires with the next request on it, and the client reads ECONNRESET (seen in `npm run test:busy`).
    const server = createServer({ keepAliveTimeout: 600_000 });
    answerMalformedRequests(server);
    const port = await listen(server);
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const baseUrl = `http://127.0.0.1:${port}`;

    const partner = { clientId: `partner_${randomBytes(6).toString('hex')}`, clientSecret: `ps_${randomBytes(24).toString('base64url')}` };
    const dataDir = await mkdtemp(path.join(tmpdir(), 'paygate-gw-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    const env: Record<string, string> = {
      PAYGATE_MODE: 'sandbox',
      PAYGATE_PUBLIC_URL: baseUrl,
      PAYGATE_PARTNER_CLIENT_ID: partner.clientId,
      PAYGATE_PARTNER_CLIENT_SECRET: partner.clientSecret,
      PAYGATE_DATA_DIR: options.target === 'pglite' ? 'memory://' : dataDir,
      // suites send bursts on purpose; the 429 tests lower the limit through `rateLimit` or PAYGATE_RATE_LIMIT
      PAYGATE_RATE_LIMIT: '1000000',
      ...options.env,
    };
    if (options.target === 'postgres') {
      const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL'];
      if (!adminUrl) throw new Error('target postgres needs PAYGATE_TEST_DATABASE_URL (an admin URL)');
      // a copy of the run's migrated database when there is one; the gateway's own migrate finds nothing to do (D138 test fixtures made once per run)
      const database = await createMigratedDatabase(adminUrl, 'paygate_contract');
      cleanups.push(() => database.drop());
      env['DATABASE_URL'] = database.url;
    } else {
      delete env['DATABASE_URL'];
      // a memory:// database starts from the run's initialised data dir instead of running initdb (D138 test fixtures made once per run)
      if (env['PAYGATE_DATA_DIR']?.startsWith('memory://')) await usePgliteTemplate();
    }

    const config = loadConfig(env);
    const runtime = await openReference(config);
    cleanups.push(() => runtime.close());
    const app = createReferenceApp(runtime, {
      logger: options.logger ?? silentLogger,
      ...(options.validateResponses !== undefined ? { validateResponses: options.validateResponses } : {}),
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
      trustProxy: config.trustProxy,
      ...(options.docsDir ? { docsDir: options.docsDir } : {}),
    });
    const als = new AsyncLocalStorage<RequestState>();
    const faults = installFaults(runtime.db, als);
    server.on('request', (req, res) => als.run({ headers: req.headers, claimed: false }, () => app(req, res)));
    if (options.startWorker) runtime.worker.start();

    return {
      baseUrl,
      partner,
      runtime,
      target: options.target,
      sandbox: config.sandbox,
      faults,
      close: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
