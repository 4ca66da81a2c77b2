import type { Db } from './db.js';
import { migrate } from './migrate.js';
import type { PgliteMemory, ReferenceConfig } from '../core/config.js';
import { markStartupStage } from '../core/startup-stages.js';

export interface OpenDbOptions {
  /** PostgreSQL connection string; PGlite is used when absent. */
  databaseUrl?: string | undefined;
  /** PGlite data directory or `memory://` (default `./.paygate`). */
  dataDir?: string;
  /** PGlite memory settings (default DEFAULT_PGLITE_MEMORY). */
  pgliteMemory?: PgliteMemory;
  /** PostgreSQL connections in the pool (default 10). */
  poolSize?: number;
  /** Where LISTEN connects when `databaseUrl` is a transaction pooler (DATABASE_DIRECT_URL; D352). */
  databaseDirectUrl?: string | undefined;
  /** PostgreSQL lock_timeout of every transaction in ms (PAYGATE_DB_LOCK_TIMEOUT_MS; D351). */
  lockTimeoutMs?: number | undefined;
  /** Apply pending migrations after opening (default true). */
  migrate?: boolean;
}

/** Open the configured database (PostgreSQL if `databaseUrl`, else PGlite) and bring its schema up to date. */
export async function openDb(options: OpenDbOptions = {}): Promise<Db> {
  // Each adapter is loaded only when used: PGlite's module is large and `pg` is not needed beside it (cold start).
  let db: Db;
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    markStartupStage('database driver loaded (pg)');
    db = await openPostgres(options.databaseUrl, {
      ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
      ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      ...(options.databaseDirectUrl ? { listenConnectionString: options.databaseDirectUrl } : {}),
    });
  } else {
    const { openPglite } = await import('./pglite.js');
    markStartupStage('database driver loaded (PGlite)');
    db = await openPglite(options.dataDir ?? './.paygate', options.pgliteMemory, options.migrate ?? true);
  }
  markStartupStage('database opened');
  if (options.migrate ?? true) {
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
    markStartupStage('migrations checked');
  }
  return db;
}

/** Load the driver `openDb` will use (PGlite's or pg's modules) ahead of it: paygate serve does, before the rest (D173 database opened while modules load). */
export async function loadDriver(databaseUrl: string | undefined): Promise<void> {
  await (databaseUrl ? import('./postgres.js') : import('./pglite.js'));
}

/** The database the configuration names (DATABASE_URL, else PGlite in the data dir), migrated. */
export function openConfiguredDb(
  config: Pick<ReferenceConfig, 'databaseUrl' | 'databaseDirectUrl' | 'dbLockTimeoutMs' | 'dataDir' | 'dbPoolSize' | 'pgliteMemory'>,
): Promise<Db> {
  return openDb({
    databaseUrl: config.databaseUrl,
    databaseDirectUrl: config.databaseDirectUrl,
    lockTimeoutMs: config.dbLockTimeoutMs,
    dataDir: config.dataDir,
    poolSize: config.dbPoolSize,
    pgliteMemory: config.pgliteMemory,
  });
}
