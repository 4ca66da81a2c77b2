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
  /** Webhook retry delays in seconds after each failed attempt (last entry = last retry). */
  webhookRetrySchedule: number[];
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ReferenceConfig {
  const schedule = env['PAYGATE_WEBHOOK_RETRY_SCHEDULE'];
  const port = env['PORT'] ?? '8080';
  return {
    databaseUrl: env['DATABASE_URL'] || undefined,
    dataDir: env['PAYGATE_DATA_DIR'] || './.paygate',
    publicBaseUrl: (env['PAYGATE_PUBLIC_URL'] || `http://localhost:${port}`).replace(/\/+$/, ''),
    partnerClientId: env['PAYGATE_PARTNER_CLIENT_ID'] || undefined,
    partnerClientSecret: env['PAYGATE_PARTNER_CLIENT_SECRET'] || undefined,
    sandbox: env['PAYGATE_MODE'] !== 'production',
    workerIntervalMs: intEnv(env, 'PAYGATE_WORKER_INTERVAL_MS', 1000),
    webhookTimeoutMs: intEnv(env, 'PAYGATE_WEBHOOK_TIMEOUT_MS', 10_000),
    webhookRetrySchedule: schedule
      ? schedule.split(',').map((s) => {
          const n = Number(s.trim());
          if (!Number.isFinite(n) || n < 0) throw new Error(`PAYGATE_WEBHOOK_RETRY_SCHEDULE entries must be seconds >= 0, got ${JSON.stringify(s)}`);
          return n;
        })
      : DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  };
}
