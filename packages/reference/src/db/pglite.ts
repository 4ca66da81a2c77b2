import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { ChannelListener, Db, QueryResult } from './db.js';
import { DEFAULT_PGLITE_MEMORY, type PgliteMemory } from '../core/config.js';
import { OID, identity, parseInt8, parseTimestamp, parseTimestamptz } from './types.js';
import { isPlainParams, PgliteReads } from './pglite-reads.js';
import { lockDataDir } from './data-dir-lock.js';
import { cacheableReadId, ReadCache } from './read-cache.js';

const execFileAsync = promisify(execFile);

const parsers = {
  [OID.INT8]: parseInt8,
  [OID.DATE]: identity,
  [OID.TIMESTAMP]: parseTimestamp,
  [OID.TIMESTAMPTZ]: parseTimestamptz,
  [OID.NUMERIC]: identity,
};

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

/**
 * `reads`: the single-round path for parameterised statements outside a transaction (D86 named prepared statements on PostgreSQL); absent inside one.
 * `cache`: the results of cacheable reads (D167 PGlite read cache for cacheable reads), invalidated by every other statement and transaction run outside a
 * transaction (those inside one are covered by the transaction's own invalidation, when it starts and when it ends).
 * `unlock`: releases the data directory's lock when the database closes.
 */
function wrap(target: Queryable, root: PGlite, reads: PgliteReads | undefined, cache: ReadCache, unlock: () => void = () => undefined): Db {
  const inTx = reads === undefined;
  /** Any statement but a cacheable read, outside a transaction: it may write (invalidated when issued and when done). */
  const changing = async <T>(run: () => Promise<T>): Promise<T> => {
    if (inTx) return run();
    cache.invalidate();
    try {
      return await run();
    } finally {
      cache.invalidate();
    }
  };
  const db: Db = {
    kind: 'pglite',
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      if (reads !== undefined && params.length > 0 && isPlainParams(params)) {
        const id = cacheableReadId(sql);
        if (id !== undefined) return { rows: await cache.read(id, params, async () => (await reads.query<T>(sql, params)).rows) };
        return changing(async () => ({ rows: (await reads.query<T>(sql, params)).rows }));
      }
      return changing(async () => ({ rows: (await target.query<T>(sql, params as unknown[])).rows }));
    },
    async exec(sql: string): Promise<void> {
      await changing(() => target.exec(sql));
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      return changing(() => root.transaction((tx) => fn(wrap(tx, root, undefined, cache))));
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
      if (inTx) return;
      cache.invalidate();
      if (!root.closed) await root.close();
      unlock();
    },
  };
  return db;
}

/**
 * Compile WebAssembly with V8's baseline compiler only (Liftoff), before PGlite's module is compiled. Why: V8 also
 * recompiles hot PostgreSQL functions with its optimizing compiler, and that code and the compiler's working memory
 * stayed resident: ~50-70 MB of the PGlite gateway's RSS, for ~6% more requests per CPU-second (measured, D68). A V8
 * flag is process-wide; the only other WebAssembly a gateway process runs is PGlite's. Set once, before compiling.
 */
function useBaselineWasmCompiler(): void {
  setFlagsFromString('--liftoff-only');
}

/** PGlite's own start parameters plus the memory settings (later `-c` values win). */
export function pgliteStartParams(memory: PgliteMemory): string[] {
  return [
    ...PGlite.defaultStartParams,
    '-c',
    `shared_buffers=${memory.sharedBuffers}`,
    '-c',
    `work_mem=${memory.workMem}`,
    '-c',
    'temp_buffers=1MB',
    '-c',
    'maintenance_work_mem=8MB',
  ];
}

/**
 * Create a new data directory (initdb) in a short-lived child process. Why: initdb runs in its own WebAssembly
 * instance whose memory (~450 MB touched) is garbage afterwards, but V8 frees it only at a major GC, which an idle
 * server may not run for a long time, and the allocator keeps part of it even then: the first start of a sandbox
 * idled at ~650-800 MB RSS (~240 MB with a worker thread). A process returns all of it when it exits (D68). An
 * existing data dir (PG_VERSION present) needs none of this.
 */
async function initializeDataDir(dataDir: string, startParams: string[], memory: PgliteMemory): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const script = `
    const { PGlite } = await import(process.env.PGLITE_MODULE);
    const db = await PGlite.create(process.env.PGLITE_DATA_DIR, { startParams: JSON.parse(process.env.PGLITE_START_PARAMS) });
    await db.close();`;
  try {
    await execFileAsync(
      process.execPath,
      [...(memory.wasmCode === 'baseline' ? ['--liftoff-only'] : []), '--input-type=module', '-e', script],
      {
        env: {
          ...process.env,
          PGLITE_MODULE: import.meta.resolve('@electric-sql/pglite'),
          PGLITE_DATA_DIR: dataDir,
          PGLITE_START_PARAMS: JSON.stringify(startParams),
        },
        timeout: 120_000,
      },
    );
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(
      `Could not create the PGlite data dir ${dataDir}${stderr ? `: ${stderr.split('\n').slice(-3).join(' ')}` : ''}. Check that it is writable, or remove it to start over.`,
      { cause: err },
    );
  }
}

/**
 * Tarballs of a freshly initialised PGlite data directory (PGlite's `dumpDataDir`) that new in-memory databases start
 * from instead of running initdb: one of initdb's output only, and one with every migration applied as well. Why:
 * initdb is ~4-5 s of CPU per database and loading the tarball ~0.35 s, migrating a new database another ~0.16 s, and
 * the test run opens dozens of in-memory databases (D138). Only the test support sets them (made by the vitest
 * global setup, kept across runs); the gateway never does, and a data directory on disk never starts from one. A
 * database opened to be migrated starts from the migrated one (its migration then finds the schema current: D172 a
 * current database start writes nothing); one opened without migrations (`migrate: false`), from initdb's output.
 */
let memoryTemplate: (() => Promise<Blob>) | undefined;
let migratedMemoryTemplate: (() => Promise<Blob>) | undefined;

/**
 * Start every later `memory://` database from these tarballs of an initialised data dir (undefined: initdb again);
 * `migrated`, when given, is the one with the current migrations applied, for databases opened to be migrated.
 */
export function useMemoryTemplate(load: (() => Promise<Blob>) | undefined, migrated?: () => Promise<Blob>): void {
  memoryTemplate = load;
  migratedMemoryTemplate = migrated;
}

/** A tarball of a new, initialised in-memory data dir with the gateway's start parameters (for `useMemoryTemplate`). */
export async function dumpInitialisedDataDir(memory: PgliteMemory = DEFAULT_PGLITE_MEMORY): Promise<Blob> {
  const pg = await PGlite.create(undefined, { startParams: pgliteStartParams(memory) });
  try {
    return await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
}

/**
 * A tarball of a new in-memory data dir with every migration applied (`migrate`, given by the caller so this module
 * does not import the migrations), started from `initialised` (a `dumpInitialisedDataDir` tarball).
 */
export async function dumpMigratedDataDir(
  migrate: (db: Db) => Promise<unknown>,
  initialised: Blob,
  memory: PgliteMemory = DEFAULT_PGLITE_MEMORY,
): Promise<Blob> {
  const pg = await PGlite.create(undefined, { parsers, startParams: pgliteStartParams(memory), loadDataDir: initialised });
  try {
    await migrate(wrap(pg, pg, new PgliteReads(pg), new ReadCache(), () => undefined));
    return await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
}

/**
 * Open an embedded PGlite database. `dataDir` is a directory (created if missing) or `memory://` for an
 * in-memory database. PGlite has one connection, so transactions run one at a time. `toBeMigrated`: the caller
 * migrates it next (an in-memory one then starts from the migrated template when the test support set one).
 */
export async function openPglite(dataDir: string, memory: PgliteMemory = DEFAULT_PGLITE_MEMORY, toBeMigrated = false): Promise<Db> {
  if (memory.wasmCode === 'baseline') useBaselineWasmCompiler();
  const memoryDir = dataDir === 'memory://' || dataDir.startsWith('memory://');
  const startParams = pgliteStartParams(memory);
  let unlock: () => void = () => undefined;
  if (!memoryDir) {
    await mkdir(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir); // before initdb and migrations: a second process stops here, touching nothing
    await initializeDataDir(dataDir, startParams, memory).catch((err: unknown) => {
      unlock();
      throw err;
    });
  }
  try {
    const template = toBeMigrated && migratedMemoryTemplate ? migratedMemoryTemplate : memoryTemplate;
    const loadDataDir = memoryDir && template ? await template() : undefined;
    const pg = await PGlite.create(memoryDir ? undefined : dataDir, { parsers, startParams, ...(loadDataDir ? { loadDataDir } : {}) });
    await pg.exec(`SET TimeZone = 'UTC'`);
    return wrap(pg, pg, new PgliteReads(pg), new ReadCache(), unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}
