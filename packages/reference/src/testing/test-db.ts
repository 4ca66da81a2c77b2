import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../db/db.js';
import { openDb } from '../db/open.js';
import { usePgliteTemplate } from './pglite-template.js';

export { usePgliteTemplate } from './pglite-template.js';

/** A database a test file owns: PGlite in memory, or a fresh PostgreSQL database dropped on dispose. */
export interface TestDb {
  db: Db;
  target: TestTarget;
  /** Open another independent connection pool on the same database (PostgreSQL only; simulates a second process). */
  openSecond(): Promise<Db>;
  dispose(): Promise<void>;
}

export type TestTarget = 'pglite' | 'postgres';

/**
 * `pglite` always; `postgres` too when PAYGATE_TEST_DATABASE_URL is set (an admin URL, e.g.
 * postgres://postgres@127.0.0.1:5432/postgres); `postgres` alone in a run through PgBouncer (`npm run test:pooler`,
 * D353: the PGlite half ran in `npm test` and meets no pooler).
 */
export function testTargets(): TestTarget[] {
  if (pooledRun()) return ['postgres'];
  return process.env['PAYGATE_TEST_DATABASE_URL'] ? ['pglite', 'postgres'] : ['pglite'];
}

/** A PostgreSQL database created for one test file or run; `drop()` removes it (WITH (FORCE) cuts stray connections). */
export interface ThrowawayDatabase {
  /** What the code under test connects to: through the run's PgBouncer when there is one (D353 tests through a real PgBouncer), else `directUrl`. */
  url: string;
  /** The database on PostgreSQL itself (LISTEN, session-level locks held by a test, CREATE DATABASE ... TEMPLATE). */
  directUrl: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * The port of the run's PgBouncer (transaction mode) when the run goes through one (`npm run test:pooler`: the global
 * setup starts it, D353): the databases tests create are then reached through it.
 */
export const PGBOUNCER_PORT_ENV = 'PAYGATE_TEST_PGBOUNCER_PORT';

/** Whether this run reaches its PostgreSQL databases through PgBouncer (`npm run test:pooler`, D353). */
export function pooledRun(): boolean {
  return Boolean(process.env[PGBOUNCER_PORT_ENV]);
}

/** `url` through the run's PgBouncer, when the run has one. */
export function throughRunPooler(url: string): string {
  const port = process.env[PGBOUNCER_PORT_ENV];
  if (!port) return url;
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = port;
  return u.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The migrated PostgreSQL database of this test run that `createMigratedDatabase` copies (D138 test fixtures made once per run): made once per run by
 * the vitest global setup (test/support/global-setup.ts), dropped at its end.
 */
export const PG_TEMPLATE_ENV = 'PAYGATE_TEST_PG_TEMPLATE';

/**
 * Create a fresh database on the server of `adminUrl` (e.g. postgres://postgres@127.0.0.1:5432/postgres); empty, or a
 * copy of the database named `template`.
 */
export async function createThrowawayDatabase(adminUrl: string, prefix = 'paygate_test', template?: string): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const directUrl = url.toString();
  return {
    url: throughRunPooler(directUrl),
    directUrl,
    name,
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A fresh database that its user migrates (or expects migrated): a copy of the run's migrated template when the run
 * made one (`CREATE DATABASE ... TEMPLATE`: a file copy on the server instead of every migration's DDL), else empty.
 * Migrating it again is a no-op, so callers still run `migrate` and a run without the template behaves as before.
 */
export function createMigratedDatabase(adminUrl: string, prefix = 'paygate_test'): Promise<ThrowawayDatabase> {
  return createThrowawayDatabase(adminUrl, prefix, process.env[PG_TEMPLATE_ENV] || undefined);
}

export async function openTestDb(target: TestTarget, options: { migrate?: boolean } = {}): Promise<TestDb> {
  const migrate = options.migrate ?? true;
  if (target === 'pglite') {
    await usePgliteTemplate(); // initdb's output from the run's tarball, when the run made one (D138 test fixtures made once per run)
    const db = await openDb({ dataDir: 'memory://', migrate });
    return {
      db,
      target,
      openSecond: () => Promise.reject(new Error('PGlite has a single connection; use PostgreSQL for multi-process tests')),
      dispose: () => db.close(),
    };
  }
  const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL'];
  if (!adminUrl) throw new Error('PAYGATE_TEST_DATABASE_URL is not set');
  // migrate: false wants an empty database; otherwise a copy of the run's migrated one (D138 test fixtures made once per run)
  const database = migrate ? await createMigratedDatabase(adminUrl) : await createThrowawayDatabase(adminUrl);
  const url = database.url;
  const extra: Db[] = [];
  const db = await openDb({ databaseUrl: url, migrate });
  return {
    db,
    target,
    async openSecond() {
      const second = await openDb({ databaseUrl: url, migrate: false });
      extra.push(second);
      return second;
    },
    async dispose() {
      await Promise.all([db, ...extra].map((d) => d.close()));
      await database.drop();
    },
  };
}
