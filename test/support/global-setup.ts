/**
 * The test run's shared setup (wired in vitest.config.ts, beside the contract suite's coverage setup), done once per
 * run instead of once per test file (D138 test fixtures made once per run):
 * - a tarball of an initialised PGlite data dir (PAYGATE_TEST_PGLITE_TEMPLATE; `usePgliteTemplate()` in the database
 *   helpers loads it instead of running initdb for each in-memory database), and one with the migrations applied too
 *   (PAYGATE_TEST_PGLITE_MIGRATED_TEMPLATE) for the databases opened to be migrated;
 * - with PAYGATE_TEST_DATABASE_URL, a migrated PostgreSQL database (PAYGATE_TEST_PG_TEMPLATE) that
 *   `createMigratedDatabase()` copies with `CREATE DATABASE ... TEMPLATE`, dropped when the run ends;
 * - with PAYGATE_TEST_THROUGH_PGBOUNCER=1 (`npm run test:pooler`), a PgBouncer in transaction mode through which the
 *   databases the tests create are reached (PAYGATE_TEST_PGBOUNCER_PORT; D353);
 * - a run id (PAYGATE_TEST_RUN_ID) that `buildOnce()` (test/support/build.ts) records after building, so the fault,
 *   packaging and README files build dist/ once per run, not once per file.
 * Environment variables set here reach the test workers, which vitest starts after the global setups ran.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDb } from '../../packages/reference/src/db/open.js';
import {
  ensureMigratedPgliteTemplate,
  ensurePgliteTemplate,
  PGLITE_MIGRATED_TEMPLATE_ENV,
  PGLITE_TEMPLATE_ENV,
} from '../../packages/reference/src/testing/pglite-template.js';
import { pgbouncerSkipReason, startPgBouncer, type PgBouncer } from '../../packages/reference/src/testing/pgbouncer.js';
import { createThrowawayDatabase, PG_TEMPLATE_ENV, PGBOUNCER_PORT_ENV } from '../../packages/reference/src/testing/test-db.js';

/** Set by `npm run test:pooler`: run the chosen test files through a real PgBouncer (D353 tests through a real PgBouncer). */
const THROUGH_PGBOUNCER_ENV = 'PAYGATE_TEST_THROUGH_PGBOUNCER';

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/paygate-test/', import.meta.url));
const PG_TEMPLATE_PREFIX = 'paygate_template';
/** A template older than this is from a run that was killed before its teardown: dropped by the next run. */
const STALE_TEMPLATE_MS = 6 * 3600_000;

export default async function setup(): Promise<() => Promise<void>> {
  process.env['PAYGATE_TEST_RUN_ID'] ??= `${Date.now()}-${randomBytes(4).toString('hex')}`;
  const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL'];
  // `npm run test:pooler` (D353 tests through a real PgBouncer): the databases this run's tests create are reached through one PgBouncer
  const bouncer = await runPooler(adminUrl);
  const [pgliteTemplates, pgTemplate] = await Promise.all([
    ensurePgliteTemplate(path.join(CACHE_DIR, 'pglite')).then(async (initialised) => ({
      initialised,
      migrated: await ensureMigratedPgliteTemplate(initialised),
    })),
    adminUrl && process.env[PG_TEMPLATE_ENV] === undefined ? createPgTemplate(adminUrl) : undefined,
  ]);
  process.env[PGLITE_TEMPLATE_ENV] ??= pgliteTemplates.initialised;
  process.env[PGLITE_MIGRATED_TEMPLATE_ENV] ??= pgliteTemplates.migrated;
  if (pgTemplate) process.env[PG_TEMPLATE_ENV] = pgTemplate.name;
  return async () => {
    await pgTemplate?.drop();
    await bouncer?.stop();
  };
}

/** With PAYGATE_TEST_THROUGH_PGBOUNCER=1: a PgBouncer in transaction mode in front of the test server, for the run. */
async function runPooler(adminUrl: string | undefined): Promise<PgBouncer | undefined> {
  if (process.env[THROUGH_PGBOUNCER_ENV] !== '1') return undefined;
  if (!adminUrl) throw new Error(`${THROUGH_PGBOUNCER_ENV}=1 needs PAYGATE_TEST_DATABASE_URL (the PostgreSQL behind PgBouncer)`);
  const reason = pgbouncerSkipReason();
  if (reason) throw new Error(`${THROUGH_PGBOUNCER_ENV}=1 but ${reason}`);
  const bouncer = await startPgBouncer(adminUrl, { poolSize: 40 });
  process.env[PGBOUNCER_PORT_ENV] = String(bouncer.port);
  console.info(`[test setup] PostgreSQL test databases are reached through PgBouncer (transaction mode) on 127.0.0.1:${bouncer.port}`);
  return bouncer;
}

/** A new database with every migration applied, named with its creation time (so a leftover can be told stale). */
async function createPgTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  await dropStaleTemplates(adminUrl);
  const database = await createThrowawayDatabase(adminUrl, `${PG_TEMPLATE_PREFIX}_${Date.now()}`);
  try {
    // directly: a database copied as a TEMPLATE must have no session, and a pooler would keep its server connections
    const db = await openDb({ databaseUrl: database.directUrl, poolSize: 1 });
    await db.close();
  } catch (err) {
    await database.drop();
    throw err;
  }
  return database;
}

async function dropStaleTemplates(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE '${PG_TEMPLATE_PREFIX}\\_%'`,
    );
    for (const { datname } of rows) {
      const created = Number(datname.slice(PG_TEMPLATE_PREFIX.length + 1).split('_')[0]);
      if (Number.isFinite(created) && Date.now() - created > STALE_TEMPLATE_MS) {
        await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
    }
  } finally {
    await client.end();
  }
}
