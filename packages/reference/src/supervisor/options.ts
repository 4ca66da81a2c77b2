/**
 * The options of `paygate serve` itself (not of the gateway): how many processes (`--workers N|auto`,
 * PAYGATE_WORKERS) and how long a stop may take (PAYGATE_SHUTDOWN_TIMEOUT_MS). D100.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.js';

/** A command line `paygate serve` does not take (the caller prints the usage). */
export class ServeUsageError extends Error {}

/** More than this is a typo, not a machine (the pool of each worker counts against PostgreSQL's max_connections). */
export const MAX_WORKERS = 256;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** `--workers` as given (undefined: not given). Throws ServeUsageError for anything else on the command line. */
export function parseServeArguments(argv: readonly string[]): { workers: string | undefined } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { workers: { type: 'string' } }, allowPositionals: false, strict: true });
  } catch (err) {
    throw new ServeUsageError(
      `paygate serve takes only --workers N|auto; configure everything else with environment variables (see paygate serve --help). ${(err as Error).message}`,
    );
  }
  const workers = parsed.values.workers;
  if (workers !== undefined) parseWorkerCount(workers, '--workers', () => 1); // refuses a malformed value as a usage error
  return { workers };
}

/**
 * The number of worker processes: `--workers` over PAYGATE_WORKERS, default 1 (one process, no supervisor).
 * `auto` is one per core this process may use (`os.availableParallelism()`).
 */
export function resolveWorkerCount(flag: string | undefined, env: NodeJS.ProcessEnv, cores: () => number = availableParallelism): number {
  if (flag !== undefined) return parseWorkerCount(flag, '--workers', cores);
  const raw = env['PAYGATE_WORKERS'];
  if (raw === undefined || raw === '') return 1;
  try {
    return parseWorkerCount(raw, 'PAYGATE_WORKERS', cores);
  } catch (err) {
    throw new Error((err as Error).message);
  }
}

function parseWorkerCount(raw: string, name: string, cores: () => number): number {
  if (raw === 'auto') return Math.max(1, Math.min(MAX_WORKERS, cores()));
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > MAX_WORKERS) {
    throw new ServeUsageError(
      `${name} must be a number of processes from 1 to ${MAX_WORKERS}, or auto (one per core), got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** PAYGATE_SHUTDOWN_TIMEOUT_MS: how long a stopping process lets in-flight requests finish before it closes them. */
export function shutdownTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env['PAYGATE_SHUTDOWN_TIMEOUT_MS'];
  if (raw === undefined || raw === '') return DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`PAYGATE_SHUTDOWN_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(raw)}`);
  return n;
}

/** Why several processes cannot share the embedded database, and what to do instead. */
export function pgliteRefusal(workers: number): string {
  return (
    `--workers ${workers} needs PostgreSQL: the embedded PGlite database (DATABASE_URL unset) lives inside one process ` +
    'and cannot be shared. Set DATABASE_URL=postgres://user:password@host:5432/paygate to run several workers on one ' +
    'database, or run a single process (--workers 1, or unset PAYGATE_WORKERS).'
  );
}

/** What makes N processes on this configuration impossible, with what to do instead; undefined when they can run. */
export function clusterRefusal(workers: number, env: NodeJS.ProcessEnv): string | undefined {
  const config = loadConfig(env);
  if (!config.databaseUrl) return pgliteRefusal(workers);
  if (config.dataDir.startsWith('memory://') && (!config.masterKey || (config.sandbox && !config.partnerClientId))) {
    return (
      `--workers ${workers} with an in-memory data dir (PAYGATE_DATA_DIR=memory://) would give each process its own ` +
      'master key and sandbox partner credential. Set PAYGATE_DATA_DIR to a directory, or set PAYGATE_MASTER_KEY and ' +
      'PAYGATE_PARTNER_CLIENT_ID / PAYGATE_PARTNER_CLIENT_SECRET.'
    );
  }
  return undefined;
}
