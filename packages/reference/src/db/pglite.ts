import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db, QueryResult } from './db.js';
import { OID, identity, parseInt8, parseTimestamp, parseTimestamptz } from './types.js';

const parsers = {
  [OID.INT8]: parseInt8,
  [OID.DATE]: identity,
  [OID.TIMESTAMP]: parseTimestamp,
  [OID.TIMESTAMPTZ]: parseTimestamptz,
  [OID.NUMERIC]: identity,
};

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

function wrap(target: Queryable, root: PGlite, inTx: boolean): Db {
  const db: Db = {
    kind: 'pglite',
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const res = await target.query<T>(sql, params as unknown[]);
      return { rows: res.rows };
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      return root.transaction((tx) => fn(wrap(tx, root, true)));
    },
    async close(): Promise<void> {
      if (!inTx && !root.closed) await root.close();
    },
  };
  return db;
}

/**
 * Open an embedded PGlite database. `dataDir` is a directory (created if missing) or `memory://` for an
 * in-memory database. PGlite has one connection, so transactions run one at a time.
 */
export async function openPglite(dataDir: string): Promise<Db> {
  const memory = dataDir === 'memory://' || dataDir.startsWith('memory://');
  if (!memory) await mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create(memory ? undefined : dataDir, { parsers });
  await pg.exec(`SET TimeZone = 'UTC'`);
  return wrap(pg, pg, false);
}
