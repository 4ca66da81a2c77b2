import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../db/db.js';
import { openDb } from '../db/open.js';

/** A database a test file owns: PGlite in memory, or a fresh PostgreSQL database dropped on dispose. */
export interface TestDb {
  db: Db;
  target: TestTarget;
  /** Open another independent connection pool on the same database (PostgreSQL only; simulates a second process). */
  openSecond(): Promise<Db>;
  dispose(): Promise<void>;
}

export type TestTarget = 'pglite' | 'postgres';

/** `pglite` always; `postgres` too when PAYGATE_TEST_DATABASE_URL is set (an admin URL, e.g. postgres://postgres@127.0.0.1:5432/postgres). */
export function testTargets(): TestTarget[] {
  return process.env['PAYGATE_TEST_DATABASE_URL'] ? ['pglite', 'postgres'] : ['pglite'];
}

function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function openTestDb(target: TestTarget, options: { migrate?: boolean } = {}): Promise<TestDb> {
  const migrate = options.migrate ?? true;
  if (target === 'pglite') {
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
  const name = `paygate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
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
      const drop = new pg.Client({ connectionString: adminUrl });
      await drop.connect();
      try {
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    },
  };
}
