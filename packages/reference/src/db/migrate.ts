import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';
import { insertInto, VALUE } from './insert.js';

/**
 * Advisory lock key shared by every Paygate process: "paygate" as ASCII (0x70617967617465) as earlier versions sent it,
 * rounded to a double (the literal is above 2^53), so processes of older and newer versions still exclude each other.
 */
const MIGRATION_LOCK_KEY = '31632371444970596';

/** Directory holding NNN_name.sql migrations (next to this module; copy it beside the build output). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: string;
  sql: string;
}

/** The `NNN_*.sql` file names in numeric order. */
async function migrationFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => /^\d+_[\w-]+\.sql$/.test(n));
  return names.sort((a, b) => Number(a.split('_')[0]) - Number(b.split('_')[0]) || a.localeCompare(b));
}

/** Read `NNN_*.sql` files in numeric order. */
export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const names = await migrationFiles(dir);
  return Promise.all(
    names.map(async (name) => ({
      version: name.replace(/\.sql$/, ''),
      sql: await readFile(`${dir}${dir.endsWith('/') ? '' : '/'}${name}`, 'utf8'),
    })),
  );
}

/** A migration applied: the schema_migrations row's one column list (D460, "An INSERT is built from its table's column list") (applied_at: its default). */
const RECORD_MIGRATION = insertInto('schema_migrations', { version: VALUE });

/**
 * Apply every migration not yet recorded in `schema_migrations`, in order, inside ONE transaction that first takes
 * `pg_advisory_xact_lock`, so two processes starting together apply each migration exactly once.
 * Returns the versions applied by this call.
 */
export async function migrate(db: Db, migrations?: Migration[]): Promise<string[]> {
  // D172: a database whose schema is current (every start but the first after an upgrade) costs one read: the
  // versions it records against the migration file names, without reading the files, taking the lock or writing.
  // Anything else (no table yet, a version missing, an unknown one, the read failing) takes the full path below.
  const versions = migrations?.map((m) => m.version) ?? (await migrationFiles(MIGRATIONS_DIR)).map((n) => n.replace(/\.sql$/, ''));
  if (await isCurrent(db, versions)) return [];
  const list = migrations ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    // A schema change may take longer than a request's statement timeout (D91 infrastructure failures named in one place: 503), and another process's migration may
    // hold the lock below for as long (D351: the request lock timeout does not apply): neither for this transaction.
    await tx.exec('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const unknown = [...done].filter((v) => !list.some((m) => m.version === v)).sort();
    if (unknown.length > 0) {
      // e.g. a sandbox data dir from a pre-release build, whose migrations were later squashed into 001_initial
      throw new Error(
        `This database was migrated by another Paygate build (unknown migrations: ${unknown.join(', ')}). ` +
          'Use a database made by this version: for the sandbox, delete the data dir (PAYGATE_DATA_DIR, default ./.paygate) to start over.',
      );
    }
    const applied: string[] = [];
    for (const m of list) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query(RECORD_MIGRATION.text, RECORD_MIGRATION.values({ version: m.version }));
      applied.push(m.version);
    }
    return applied;
  });
}

/** True when `schema_migrations` records exactly `versions` (one read, outside any transaction; false if it fails). */
async function isCurrent(db: Db, versions: readonly string[]): Promise<boolean> {
  let recorded: string[];
  try {
    recorded = (await db.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version);
  } catch {
    return false; // e.g. a new database: no schema_migrations yet
  }
  const expected = new Set(versions);
  return recorded.length === expected.size && recorded.every((v) => expected.has(v));
}
