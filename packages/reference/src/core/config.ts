import { MASTER_KEY_HINT, parseMasterKey } from './secret-box.js';

/** Runtime configuration of the reference gateway, read from the environment once at start-up. */
export interface ReferenceConfig {
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of PGlite. */
  databaseUrl: string | undefined;
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

/** PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS: `allow` | `deny` (default `allow` in sandbox mode; production only `deny`). */
function privateDestinationsEnv(env: NodeJS.ProcessEnv, sandbox: boolean): boolean {
  const raw = env['PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS'];
  if (raw === undefined || raw === '') return sandbox;
  if (raw !== 'allow' && raw !== 'deny') throw new Error(`PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS must be allow or deny, got ${JSON.stringify(raw)}`);
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ReferenceConfig {
  const schedule = env['PAYGATE_WEBHOOK_RETRY_SCHEDULE'];
  const port = env['PORT'] ?? '8080';
  const sandbox = env['PAYGATE_MODE'] !== 'production';
  const rawKey = env['PAYGATE_MASTER_KEY'];
  const masterKey = rawKey ? parseMasterKey(rawKey) : undefined;
  if (!masterKey && !sandbox) throw new Error(MASTER_KEY_REQUIRED_MESSAGE);
  return {
    databaseUrl: env['DATABASE_URL'] || undefined,
    dataDir: env['PAYGATE_DATA_DIR'] || './.paygate',
    publicBaseUrl: (env['PAYGATE_PUBLIC_URL'] || `http://localhost:${port}`).replace(/\/+$/, ''),
    partnerClientId: env['PAYGATE_PARTNER_CLIENT_ID'] || undefined,
    partnerClientSecret: env['PAYGATE_PARTNER_CLIENT_SECRET'] || undefined,
    sandbox,
    workerIntervalMs: intEnv(env, 'PAYGATE_WORKER_INTERVAL_MS', 1000),
    webhookTimeoutMs: intEnv(env, 'PAYGATE_WEBHOOK_TIMEOUT_MS', 10_000),
    settlementIntervalSeconds: intEnv(env, 'PAYGATE_SETTLEMENT_INTERVAL_SECONDS', 86_400),
    webhookRetrySchedule: schedule
      ? schedule.split(',').map((s) => {
          const n = Number(s.trim());
          if (!Number.isFinite(n) || n < 0) throw new Error(`PAYGATE_WEBHOOK_RETRY_SCHEDULE entries must be seconds >= 0, got ${JSON.stringify(s)}`);
          return n;
        })
      : DEFAULT_WEBHOOK_RETRY_SCHEDULE,
    webhookPrivateDestinations: privateDestinationsEnv(env, sandbox),
    masterKey,
  };
}
