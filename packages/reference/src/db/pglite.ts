import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { ChannelListener, Db, QueryResult } from './db.js';
import { DEFAULT_PGLITE_MEMORY, type PgliteMemory } from '../core/config.js';
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
    async listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
      // one process, one connection: a notification is delivered here when the transaction that sent it commits
      const stop = await root.listen(channel, (payload) => listener.onNotify(payload));
      listener.onReady();
      return async () => {
        if (!root.closed) await stop();
      };
    },
    async close(): Promise<void> {
      if (!inTx && !root.closed) await root.close();
    },
  };
  return db;
}

/** PGlite's own start parameters plus the memory settings (later `-c` values win). */
export function pgliteStartParams(memory: PgliteMemory): string[] {
  return [
    ...PGlite.defaultStartParams,
    '-c', `shared_buffers=${memory.sharedBuffers}`,
    '-c', `work_mem=${memory.workMem}`,
    '-c', 'temp_buffers=1MB',
    '-c', 'maintenance_work_mem=8MB',
  ];
}

/**
 * Open an embedded PGlite database. `dataDir` is a directory (created if missing) or `memory://` for an
 * in-memory database. PGlite has one connection, so transactions run one at a time.
 */
export async function openPglite(dataDir: string, memory: PgliteMemory = DEFAULT_PGLITE_MEMORY): Promise<Db> {
  const memoryDir = dataDir === 'memory://' || dataDir.startsWith('memory://');
  if (!memoryDir) await mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create(memoryDir ? undefined : dataDir, { parsers, startParams: pgliteStartParams(memory) });
  await pg.exec(`SET TimeZone = 'UTC'`);
  return wrap(pg, pg, false);
}
