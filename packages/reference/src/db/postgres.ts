import pg from 'pg';
import type { ChannelListener, Db, QueryResult } from './db.js';
import { sqlState } from './db.js';
import { StatementNames } from './statement-names.js';
import { OID, identity, parseInt8, parseTimestamp, parseTimestamptz } from './types.js';

const custom: Record<number, (text: string) => unknown> = {
  [OID.INT8]: parseInt8,
  [OID.DATE]: identity,
  [OID.TIMESTAMP]: parseTimestamp,
  [OID.TIMESTAMPTZ]: parseTimestamptz,
  [OID.NUMERIC]: identity,
};

/**
 * Per-pool parsers (the global pg.types registry is left untouched). Why the cast: @types/pg declares
 * `getTypeParser` as an overloaded generic (one overload per format) that a single function cannot be typed as,
 * though it behaves exactly as pg expects (the same contract as pg.types.getTypeParser, which it falls back to).
 */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const parser = custom[oid];
    if (parser && (format ?? 'text') === 'text') return parser;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as unknown as pg.CustomTypesConfig; // see the comment above

/** Deadlock / serialization failure: the whole transaction is safe to retry. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_TX_ATTEMPTS = 4;

/**
 * A parameterised query as pg's query config: named (prepared once per connection, D86) unless the name bound is
 * reached. Queries without parameters (BEGIN, SAVEPOINT, SELECT 1) stay unnamed.
 */
function queryConfig(names: StatementNames, sql: string, params: readonly unknown[]): pg.QueryConfig {
  const name = params.length > 0 ? names.nameFor(sql) : undefined;
  return name === undefined ? { text: sql, values: params as unknown[] } : { name, text: sql, values: params as unknown[] };
}

function clientDb(client: pg.PoolClient, names: StatementNames): Db {
  const db: Db = {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const res = await client.query(queryConfig(names, sql, params));
      return { rows: res.rows as T[] };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
    transaction: (fn) => fn(db),
    listen: () => Promise.reject(new Error('listen on a transaction handle: listen on the database instead')),
    async close(): Promise<void> {
      /* owned by the pool */
    },
  };
  return db;
}

/** application_name of the notification connections (pg_stat_activity shows them; the fault tests find them by it). */
export const LISTENER_APPLICATION_NAME = 'paygate-listener';
/** Reconnect delays of a lost notification connection: doubling from the first to the last, then the last. */
const LISTEN_RETRY_MS = { first: 100, last: 5_000 };

/**
 * LISTEN on a dedicated connection (a pooled one would be handed to other queries). When it drops (server restart,
 * pg_terminate_backend, network), `onLost` runs at once and the connection is reopened with backoff; `onReady` runs
 * after each successful LISTEN, because notifications sent in between are lost.
 */
async function listenOn(connectionString: string, channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = LISTEN_RETRY_MS.first;
  const lost = (client: pg.Client, err?: unknown) => {
    if (current !== client) return; // already reported
    current = undefined;
    listener.onLost(err);
    client.end().catch(() => undefined);
    schedule();
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, LISTEN_RETRY_MS.last);
  };
  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString, application_name: LISTENER_APPLICATION_NAME });
    client.on('notification', (m) => {
      if (m.channel === channel) listener.onNotify(m.payload ?? '');
    });
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      schedule();
      if (current === undefined) listener.onLost(err);
      return;
    }
    if (stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    current = client;
    delay = LISTEN_RETRY_MS.first;
    listener.onReady();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const client = current;
    current = undefined;
    await client?.end().catch(() => undefined);
  };
}

export interface PostgresOptions {
  /** Pool size (default 10). */
  max?: number;
}

/** Open a PostgreSQL database through a `pg` Pool. Every session runs with TimeZone=UTC. */
export async function openPostgres(connectionString: string, options: PostgresOptions = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    options: '-c TimeZone=UTC',
    types: typeParsers,
  });
  // Idle clients can emit errors when the server goes away; without a listener that would crash the process.
  pool.on('error', () => undefined);
  const names = new StatementNames();
  let closed = false;

  const db: Db = {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const res = await pool.query(queryConfig(names, sql, params));
      return { rows: res.rows as T[] };
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const result = await fn(clientDb(client, names));
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          const code = sqlState(err);
          if (code && RETRYABLE.has(code) && attempt < MAX_TX_ATTEMPTS) continue;
          throw err;
        } finally {
          client.release();
        }
      }
    },
    listen: (channel, listener) => listenOn(connectionString, channel, listener),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  await db.query('SELECT 1');
  return db;
}
