import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { MASTER_KEY_HINT, parseMasterKey } from './secret-box.js';

/** Runtime configuration of the reference gateway, read from the environment once at start-up. */
export interface ReferenceConfig {
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of PGlite. */
  databaseUrl: string | undefined;
  /**
   * DATABASE_DIRECT_URL: a direct PostgreSQL connection for LISTEN when DATABASE_URL is a transaction pooler, which does
   * not carry notifications (D352 notifications through a pooler: direct or polling). Unset: LISTEN on DATABASE_URL, and credential changes are also polled.
   */
  databaseDirectUrl: string | undefined;
  /** PAYGATE_DB_LOCK_TIMEOUT_MS: the longest wait for a row lock in a transaction (ms, below the statement timeout; D351). */
  dbLockTimeoutMs: number;
  /** PGlite data directory (`memory://` for in-memory). Uploaded documents live in `<dataDir>/documents`. */
  dataDir: string;
  /** Absolute base URL the gateway is reachable at (document URLs and pagination links). */
  publicBaseUrl: string;
  /** Partner credential seeded at start-up (both or neither). */
  partnerClientId: string | undefined;
  partnerClientSecret: string | undefined;
  /** Whether this deployment is the sandbox (orders carry is_testing = true, sandbox automation runs). */
  sandbox: boolean;
  /** Worker poll interval in milliseconds. */
  workerIntervalMs: number;
  /** How long one webhook delivery may take before it counts as failed (and is retried). */
  webhookTimeoutMs: number;
  /** Payments settled per batch transaction of a settlement run (D112 settlement runs in batches of 1,000 payments). */
  settlementBatchSize: number;
  /** Webhook deliveries in flight per process, and per endpoint within them (D114 transactional outbox kept over a job queue). */
  webhookConcurrency: number;
  webhookEndpointConcurrency: number;
  /** Production: seconds between scheduled settlement runs (sandbox settles on POST /sandbox/settlements/run only). */
  settlementIntervalSeconds: number;
  /** Webhook retry delays in seconds after each failed attempt (last entry = last retry). */
  webhookRetrySchedule: number[];
  /**
   * Whether webhook endpoints may name, and deliveries may reach, private, loopback, link-local and metadata addresses
   * (PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS, decision D35): sandbox default `allow` (receivers on the developer's
   * machine), `deny` for a sandbox reachable by others; production is always `deny`.
   */
  webhookPrivateDestinations: boolean;
  /**
   * 32-byte key (PAYGATE_MASTER_KEY, base64 or hex) sealing the secrets the gateway must use again (merchant callback
   * encryption keys, webhook signing secrets, stored Idempotency-Key responses). Required in production mode; when
   * unset in sandbox mode the runtime keeps one in `<dataDir>/master.key` (mode 0600). Never log it.
   */
  masterKey: Buffer | undefined;
  /** Requests per window and credential (or client address on the public checkout routes): PAYGATE_RATE_LIMIT. */
  rateLimit: number;
  /** The rate-limit window in seconds: PAYGATE_RATE_WINDOW_SECONDS. */
  rateWindowSeconds: number;
  /** REDIS_URL: rate limits shared by every gateway process on this Redis; unset = per process (in memory). */
  redisUrl: string | undefined;
  /** How long one Redis command may take before this process limits on its own (PAYGATE_REDIS_TIMEOUT_MS, D95). */
  redisTimeoutMs: number;
  /**
   * Prefix of this gateway's rate-limit keys in Redis (PAYGATE_REDIS_KEY_PREFIX, default `paygate:rl`): gateways that
   * must not share limits (a sandbox and a production, two test runs) use one Redis with different prefixes.
   */
  redisKeyPrefix: string;
  /**
   * PAYGATE_TRUST_PROXY: which proxies' `X-Forwarded-For` names the client (Express `trust proxy`: a hop count, or
   * addresses/subnets such as `loopback, 10.0.0.0/8`; `true` only in the sandbox, D98). Unset: the socket address is
   * the client.
   */
  trustProxy: boolean | number | string | undefined;
  /** PostgreSQL connections per process: PAYGATE_DB_POOL_SIZE. */
  dbPoolSize: number;
  /**
   * How long a process reuses a verified credential (PAYGATE_CREDENTIAL_CACHE_TTL_MS, ms; 0 = no cache). Revocation and
   * rotation reach every process at once (LISTEN/NOTIFY, D67); the TTL bounds it only if a notification is lost.
   */
  credentialCacheTtlMs: number;
  /** Embedded database memory (PAYGATE_PGLITE_SHARED_BUFFERS, PAYGATE_PGLITE_WORK_MEM): postgres sizes such as `16MB`. */
  pgliteMemory: PgliteMemory;
  /**
   * Bounded waits per tenant (D363 tenant share of the database pool), PostgreSQL only: requests of one tenant (merchant or partner credential) running
   * at once per process (PAYGATE_TENANT_SHARE; default the pool less a quarter; 0 = no share) and waiting for a slot
   * (PAYGATE_TENANT_QUEUE, default 64); over that, 503 with Retry-After for that tenant.
   */
  tenantShare: { share: number | undefined; queue: number };
  /** HTTP server limits (milliseconds; connections). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
    /** Open connections per client address (an IPv6 /64), PAYGATE_MAX_CONNECTIONS_PER_ADDRESS; 0 = no cap (D96 early answers close the connection, bodies counted). */
    maxConnectionsPerAddress: number;
  };
}

/**
 * Default limits, per credential (or per client address on the public checkout routes), in the range real gateways
 * publish: Stripe allows 100 requests per second in live mode and 25 in test mode (decision A26).
 */
export const DEFAULT_RATE_LIMIT = { production: 100, sandbox: 25 } as const;
export const DEFAULT_RATE_WINDOW_SECONDS = 1;
/**
 * PAYGATE_MAX_CONNECTIONS_PER_ADDRESS default (D96 early answers close the connection, bodies counted): a tenth of the global cap, so at least ten addresses are needed to
 * fill it, and still room for a browser's 6 connections from each of a dozen shoppers behind one NAT address.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 100;
/** PAYGATE_REDIS_TIMEOUT_MS default (D95 Redis commands bounded by a timeout): a healthy Redis answers in well under a millisecond; a busy host needs slack. */
export const DEFAULT_REDIS_TIMEOUT_MS = 500;

/** PostgreSQL memory settings of the embedded database (postgres GUC values, e.g. `16MB`). */
export interface PgliteMemory {
  /** shared_buffers (PAYGATE_PGLITE_SHARED_BUFFERS): the page cache, the largest part of PGlite's memory. */
  sharedBuffers: string;
  /** work_mem (PAYGATE_PGLITE_WORK_MEM): per sort / hash before it spills to disk. */
  workMem: string;
  /**
   * PAYGATE_PGLITE_WASM_CODE: `baseline` compiles PGlite's WebAssembly with V8's baseline compiler only (less memory,
   * a few % slower); `optimizing` lets V8 also optimize hot functions (V8's default).
   */
  wasmCode: 'baseline' | 'optimizing';
}

/**
 * Defaults for a sandbox on a laptop or a small container (D68 PGlite memory settings and baseline compiler). PGlite starts with PostgreSQL's server defaults
 * (shared_buffers 128MB, work_mem 4MB) inside a WebAssembly memory that grows and never shrinks, so the gateway's
 * RSS grew with load. The sandbox's working set is a few MB: 8MB of buffers (1024 pages) holds it, and pages beyond
 * come from the OS page cache: less memory under load at the same throughput (docs/benchmarks.md#pglite-memory-defaults).
 */
export const DEFAULT_PGLITE_MEMORY: PgliteMemory = { sharedBuffers: '8MB', workMem: '2MB', wasmCode: 'baseline' };

/** Default lock_timeout of a PostgreSQL transaction in ms (PAYGATE_DB_LOCK_TIMEOUT_MS; D351; statement timeout 15 s). */
export const DEFAULT_DB_LOCK_TIMEOUT_MS = 3_000;

/** Default lifetime of a cached credential verification in ms (PAYGATE_CREDENTIAL_CACHE_TTL_MS; D67). */
export const DEFAULT_CREDENTIAL_CACHE_TTL_MS = 5_000;

/** PostgreSQL pool size by default: enough connections to keep every core busy while others wait on I/O. */
export function defaultPoolSize(cores: number): number {
  return Math.min(32, Math.max(4, cores * 4));
}

/** Names Express `trust proxy` (proxy-addr) understands in an address list. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Thrown for PAYGATE_TRUST_PROXY=true (or a subnet of every address) in production mode (D98 trust-everything proxy setting refused in production). */
export const TRUST_PROXY_TRUE_REFUSED =
  'PAYGATE_TRUST_PROXY=true is refused in production mode: it believes X-Forwarded-For from anyone, so every client ' +
  'could choose the address its rate limit and logs see. Name your proxies instead: the number of proxy hops in front ' +
  'of the gateway (e.g. PAYGATE_TRUST_PROXY=1 behind one load balancer) or their addresses/subnets ' +
  '(e.g. PAYGATE_TRUST_PROXY="10.0.0.0/8" or "loopback, 10.1.2.3").';

/**
 * PAYGATE_TRUST_PROXY (Express `trust proxy`): a hop count, or addresses / subnets / `loopback`, `linklocal`,
 * `uniquelocal`, comma-separated. `true` (and `0.0.0.0/0`, `::/0`) trusts every sender's X-Forwarded-For: refused in
 * production mode, allowed with a warning in the sandbox (D98 trust-everything proxy setting refused in production).
 */
function trustProxyEnv(raw: string | undefined, sandbox: boolean): ReferenceConfig['trustProxy'] {
  if (raw === undefined || raw.trim() === '' || raw === 'false') return undefined;
  const entries = raw.split(',').map((e) => e.trim());
  const everyone = raw === 'true' || entries.some((e) => /^(0\.0\.0\.0|::)\/0$/.test(e));
  if (everyone && !sandbox) throw new Error(TRUST_PROXY_TRUE_REFUSED);
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  for (const entry of entries) {
    const valid = TRUST_PROXY_NAMES.has(entry) || ipaddr.isValid(entry) || isCidr(entry);
    if (!valid) {
      throw new Error(
        `PAYGATE_TRUST_PROXY must be a hop count or comma-separated addresses, subnets, loopback, linklocal or uniquelocal; ${JSON.stringify(entry)} is none of them`,
      );
    }
  }
  return raw;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** Brief: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then give up. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

function nonNegativeIntEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be an integer >= 0, got ${JSON.stringify(raw)}`);
  return n;
}

/** A PostgreSQL memory size (`16MB`, `512kB`, `1GB`): handed to PGlite's postgres as a setting. */
function memoryEnv(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(kB|MB|GB)$/.test(raw)) throw new Error(`${name} must be a size such as 16MB, 512kB or 1GB, got ${JSON.stringify(raw)}`);
  return raw;
}

/** PAYGATE_PGLITE_WASM_CODE: `baseline` (default) or `optimizing`. */
function wasmCodeEnv(env: NodeJS.ProcessEnv): PgliteMemory['wasmCode'] {
  const raw = env['PAYGATE_PGLITE_WASM_CODE'];
  if (raw === undefined || raw === '') return DEFAULT_PGLITE_MEMORY.wasmCode;
  if (raw !== 'baseline' && raw !== 'optimizing')
    throw new Error(`PAYGATE_PGLITE_WASM_CODE must be baseline or optimizing, got ${JSON.stringify(raw)}`);
  return raw;
}

/** PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: `allow` | `deny` (default `allow` in sandbox mode; production only `deny`). */
function privateDestinationsEnv(env: NodeJS.ProcessEnv, sandbox: boolean): boolean {
  const raw = env['PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS'];
  if (raw === undefined || raw === '') return sandbox;
  if (raw !== 'allow' && raw !== 'deny')
    throw new Error(`PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS must be allow or deny, got ${JSON.stringify(raw)}`);
  if (raw === 'allow' && !sandbox) {
    throw new Error(
      'PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS=allow is refused in production mode: webhooks there go to public addresses only ' +
        '(server-side request forgery guard). Unset it, or run a sandbox (PAYGATE_MODE=sandbox) for receivers on private networks.',
    );
  }
  return raw === 'allow';
}

/** Thrown when production mode has no PAYGATE_MASTER_KEY. */
export const MASTER_KEY_REQUIRED_MESSAGE =
  `PAYGATE_MASTER_KEY is required in production mode (32 random bytes as base64 or hex; it encrypts the stored ` +
  `webhook signing secrets, merchant encryption keys and idempotent responses). ${MASTER_KEY_HINT}`;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): ReferenceConfig {
  const schedule = env['PAYGATE_WEBHOOK_RETRY_SCHEDULE'];
  const port = env['PORT'] ?? '8080';
  const sandbox = env['PAYGATE_MODE'] !== 'production';
  const rawKey = env['PAYGATE_MASTER_KEY'];
  const masterKey = rawKey ? parseMasterKey(rawKey) : undefined;
  if (!masterKey && !sandbox) throw new Error(MASTER_KEY_REQUIRED_MESSAGE);
  return {
    databaseUrl: env['DATABASE_URL'] || undefined,
    databaseDirectUrl: env['DATABASE_DIRECT_URL'] || undefined,
    dbLockTimeoutMs: nonNegativeIntEnv(env, 'PAYGATE_DB_LOCK_TIMEOUT_MS', DEFAULT_DB_LOCK_TIMEOUT_MS),
    dataDir: env['PAYGATE_DATA_DIR'] || './.paygate',
    publicBaseUrl: (env['PAYGATE_PUBLIC_URL'] || `http://localhost:${port}`).replace(/\/+$/, ''),
    partnerClientId: env['PAYGATE_PARTNER_CLIENT_ID'] || undefined,
    partnerClientSecret: env['PAYGATE_PARTNER_CLIENT_SECRET'] || undefined,
    sandbox,
    workerIntervalMs: intEnv(env, 'PAYGATE_WORKER_INTERVAL_MS', 1000),
    webhookTimeoutMs: intEnv(env, 'PAYGATE_WEBHOOK_TIMEOUT_MS', 10_000),
    settlementBatchSize: intEnv(env, 'PAYGATE_SETTLEMENT_BATCH_SIZE', 1000),
    webhookConcurrency: intEnv(env, 'PAYGATE_WEBHOOK_CONCURRENCY', 256),
    webhookEndpointConcurrency: intEnv(env, 'PAYGATE_WEBHOOK_ENDPOINT_CONCURRENCY', 32),
    settlementIntervalSeconds: intEnv(env, 'PAYGATE_SETTLEMENT_INTERVAL_SECONDS', 86_400),
    webhookRetrySchedule: schedule
      ? schedule.split(',').map((s) => {
          const n = Number(s.trim());
          if (!Number.isFinite(n) || n < 0)
            throw new Error(`PAYGATE_WEBHOOK_RETRY_SCHEDULE entries must be seconds >= 0, got ${JSON.stringify(s)}`);
          return n;
        })
      : DEFAULT_WEBHOOK_RETRY_SCHEDULE,
    webhookPrivateDestinations: privateDestinationsEnv(env, sandbox),
    masterKey,
    rateLimit: intEnv(env, 'PAYGATE_RATE_LIMIT', sandbox ? DEFAULT_RATE_LIMIT.sandbox : DEFAULT_RATE_LIMIT.production),
    rateWindowSeconds: intEnv(env, 'PAYGATE_RATE_WINDOW_SECONDS', DEFAULT_RATE_WINDOW_SECONDS),
    redisUrl: env['REDIS_URL'] || undefined,
    redisTimeoutMs: intEnv(env, 'PAYGATE_REDIS_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUT_MS),
    redisKeyPrefix: env['PAYGATE_REDIS_KEY_PREFIX'] || 'paygate:rl',
    trustProxy: trustProxyEnv(env['PAYGATE_TRUST_PROXY'], sandbox),
    dbPoolSize: intEnv(env, 'PAYGATE_DB_POOL_SIZE', defaultPoolSize(cores)),
    credentialCacheTtlMs: nonNegativeIntEnv(env, 'PAYGATE_CREDENTIAL_CACHE_TTL_MS', DEFAULT_CREDENTIAL_CACHE_TTL_MS),
    pgliteMemory: {
      sharedBuffers: memoryEnv(env, 'PAYGATE_PGLITE_SHARED_BUFFERS', DEFAULT_PGLITE_MEMORY.sharedBuffers),
      workMem: memoryEnv(env, 'PAYGATE_PGLITE_WORK_MEM', DEFAULT_PGLITE_MEMORY.workMem),
      wasmCode: wasmCodeEnv(env),
    },
    tenantShare: {
      share: env['PAYGATE_TENANT_SHARE'] ? nonNegativeIntEnv(env, 'PAYGATE_TENANT_SHARE', 0) : undefined,
      queue: nonNegativeIntEnv(env, 'PAYGATE_TENANT_QUEUE', 64),
    },
    http: {
      headersTimeoutMs: intEnv(env, 'PAYGATE_HEADERS_TIMEOUT_MS', 10_000),
      requestTimeoutMs: intEnv(env, 'PAYGATE_REQUEST_TIMEOUT_MS', 30_000),
      keepAliveTimeoutMs: intEnv(env, 'PAYGATE_KEEP_ALIVE_TIMEOUT_MS', 5_000),
      maxConnections: intEnv(env, 'PAYGATE_MAX_CONNECTIONS', 1_000),
      maxConnectionsPerAddress: nonNegativeIntEnv(env, 'PAYGATE_MAX_CONNECTIONS_PER_ADDRESS', DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
    },
  };
}
