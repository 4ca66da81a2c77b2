import pg from 'pg';
import type { ChannelListener, Db, QueryResult } from './db.js';
import { sqlState } from './db.js';
import { StatementNames } from './statement-names.js';
import { OID, identity, parseInt8, parseTimestamp, parseTimestamptz } from './types.js';
import { isUnavailableError } from './unavailable.js';
import { BATCH_INDEX_COLUMN, batchedFormOf, type BatchedForm } from './read-batch.js';
import { deepFreeze } from './read-cache.js';

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
 * A parameterised query as pg's query config. Directly on PostgreSQL: named (prepared once per connection, D86) unless
 * the name bound is reached; queries without parameters (BEGIN, SAVEPOINT, SELECT 1) stay unnamed. Behind a
 * transaction pooler (`names` undefined): always UNNAMED (D350, "Transaction-pooler safe sessions"). A named prepared
 * statement lives on one server connection, and a transaction pooler (PgBouncer in transaction mode) hands each
 * transaction to whichever server connection is free: the name is then unknown there ("prepared statement ... does not
 * exist") or already taken by another process ("... already exists"). `queryTimeoutMs` is the client-side bound of a
 * statement outside a transaction behind a pooler (see {@link openPostgres}).
 */
function queryConfig(names: StatementNames | undefined, sql: string, params: readonly unknown[], queryTimeoutMs?: number): pg.QueryConfig {
  const name = names !== undefined && params.length > 0 ? names.nameFor(sql) : undefined;
  const config: pg.QueryConfig & { query_timeout?: number } = { text: sql, values: params as unknown[] };
  if (name !== undefined) config.name = name;
  if (queryTimeoutMs !== undefined) config.query_timeout = queryTimeoutMs;
  return config;
}

function clientDb(client: pg.PoolClient, names: StatementNames | undefined): Db {
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
    const client = new pg.Client({
      connectionString,
      application_name: LISTENER_APPLICATION_NAME,
      connectionTimeoutMillis: POSTGRES_TIMEOUTS.connectMs,
      keepAlive: true,
    });
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

/** Most reads one batched statement carries (a fuller batch is sent at once, D178). */
export const MAX_BATCHED_READS = 64;

interface PendingRead {
  readonly params: readonly string[];
  readonly waiters: { resolve(rows: unknown[]): void; reject(err: unknown): void }[];
}

interface PendingBatch {
  readonly sql: string;
  readonly form: BatchedForm;
  /** By the JSON of their parameters: the same read twice in a batch is read once. */
  readonly reads: Map<string, PendingRead>;
}

/**
 * Batchable reads (read-batch.ts, D178) issued outside a transaction in the same turn of the event loop, sent as one
 * statement per read when the turn ends (setImmediate), or as soon as a batch holds {@link MAX_BATCHED_READS}. A
 * batch is only ever joined before it is sent, so every read runs after the request that issued it arrived (never
 * answered by a statement already in flight). A batch of one sends the single statement itself. Rows are frozen
 * (deeply): the same read issued twice in a batch gets the same rows. A batch that fails with an SQL error (not a
 * lost or unavailable database, which fails every read alike) is sent again read by read, so a read only ever fails
 * with its own error.
 */
export class ReadBatcher {
  private pending = new Map<string, PendingBatch>();
  private scheduled = false;
  /** Statements sent and reads answered (tests, diagnostics). */
  readonly stats = { statements: 0, reads: 0 };

  constructor(private readonly run: (sql: string, params: readonly unknown[]) => Promise<unknown[]>) {}

  read(sql: string, form: BatchedForm, params: readonly string[]): Promise<unknown[]> {
    let batch = this.pending.get(sql);
    if (batch === undefined) this.pending.set(sql, (batch = { sql, form, reads: new Map() }));
    const key = params.length === 1 ? params[0]! : JSON.stringify(params);
    let read = batch.reads.get(key);
    if (read === undefined) batch.reads.set(key, (read = { params, waiters: [] }));
    const waiters = read.waiters;
    const answer = new Promise<unknown[]>((resolve, reject) => waiters.push({ resolve, reject }));
    if (batch.reads.size >= MAX_BATCHED_READS) {
      this.pending.delete(sql);
      void this.send(batch);
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
    return answer;
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const batch of batches.values()) void this.send(batch);
  };

  private async send(batch: PendingBatch): Promise<void> {
    const reads = [...batch.reads.values()];
    this.stats.reads += reads.length;
    if (reads.length === 1) {
      await this.sendAlone(batch.sql, reads[0]!);
      return;
    }
    const arrays: string[][] = [];
    for (let i = 0; i < batch.form.paramCount; i++) arrays.push(reads.map((r) => r.params[i]!));
    let rows: unknown[];
    try {
      this.stats.statements++;
      rows = await this.run(batch.form.sql, arrays);
    } catch (err) {
      if (isUnavailableError(err)) for (const read of reads) settle(read, err);
      else await Promise.all(reads.map((read) => this.sendAlone(batch.sql, read)));
      return;
    }
    const byRead: unknown[][] = reads.map(() => []);
    for (const row of rows) byRead[(row as Record<string, number>)[BATCH_INDEX_COLUMN]! - 1]?.push(row);
    for (let i = 0; i < reads.length; i++) settle(reads[i]!, undefined, byRead[i]!);
  }

  private async sendAlone(sql: string, read: PendingRead): Promise<void> {
    try {
      this.stats.statements++;
      settle(read, undefined, await this.run(sql, read.params));
    } catch (err) {
      settle(read, err);
    }
  }
}

function settle(read: PendingRead, err: unknown, rows?: unknown[]): void {
  if (rows === undefined) {
    for (const w of read.waiters) w.reject(err);
    return;
  }
  deepFreeze(rows);
  for (const w of read.waiters) w.resolve(rows);
}

function allStrings(params: readonly unknown[]): params is readonly string[] {
  for (const p of params) if (typeof p !== 'string') return false;
  return true;
}

interface CheckedOut {
  client: pg.PoolClient;
  onError: (err: unknown) => void;
  /** The first 'error' the client emitted while checked out (the connection is then broken). */
  lostError: { value: unknown };
}

/**
 * A client from the pool with an 'error' listener for the whole checkout (D91 infrastructure failures named in one place: 503). While checked out, pg-pool's idle
 * listener is removed: a backend terminated now (failover, pg_terminate_backend, a pooler restart) emits 'error' on
 * this client, which with no listener ends the process. The listener is attached inside pg-pool's callback, in the
 * same tick the client is handed out: with `await pool.connect()` it would come a microtask later, and pg parses the
 * rest of a socket chunk (a FATAL 57P01 right behind ReadyForQuery) before that, emitting 'error' unheard. The error
 * also fails the statement in flight (or the next one), so the listener only remembers it.
 */
function checkout(pool: pg.Pool): Promise<CheckedOut> {
  return new Promise((resolve, reject) => {
    pool.connect((err, client) => {
      if (err || !client) {
        reject(err ?? new Error('pg-pool returned no client'));
        return;
      }
      const lostError: { value: unknown } = { value: undefined };
      const onError = (e: unknown) => {
        lostError.value ??= e;
      };
      client.on('error', onError);
      resolve({ client, onError, lostError });
    });
  });
}

export interface PostgresOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Longest wait for a connection: opening one, or a free one of the pool (ms, default 5000; D91). */
  connectionTimeoutMs?: number;
  /** Server-side `statement_timeout` of every transaction (ms, default 15000; 0 = none; D91). */
  statementTimeoutMs?: number;
  /**
   * Server-side `lock_timeout` of every transaction (ms, default 3000; 0 = none): the longest wait for a row or table
   * lock, below the statement timeout (D351 lock waits bounded below the statement timeout). A wait that reaches it fails with SQLSTATE 55P03 (503 with Retry-After).
   */
  lockTimeoutMs?: number;
  /**
   * Where LISTEN connects (DATABASE_DIRECT_URL): a direct connection to PostgreSQL when `connectionString` is a
   * transaction pooler, which does not carry notifications (D352 notifications through a pooler: direct or polling). Default: `connectionString`.
   */
  listenConnectionString?: string | undefined;
}

/** Bounded waits on the database (D91 infrastructure failures named in one place: 503; D351 lock waits bounded below the statement timeout). */
export const POSTGRES_TIMEOUTS = {
  connectMs: 5_000,
  statementMs: 15_000,
  /** A row or table lock is waited for this long at most; below statementMs, so one locked row fails fast (D351 lock waits bounded below the statement timeout). */
  lockMs: 3_000,
  /** A transaction left idle this long (a stalled process holding locks) is ended by the server. */
  idleInTransactionMs: 60_000,
  /**
   * What a statement outside a transaction may take beyond the statement timeout before the client gives up on it
   * (pg's query_timeout; the connection is then discarded). Behind a transaction pooler that statement carries no
   * server-side timeout (D350 transaction-pooler safe sessions), so this is its bound.
   */
  clientGraceMs: 5_000,
} as const;

/** The settings of every session and transaction: one value, whichever way it reaches the server (D350 transaction-pooler safe sessions). */
function sessionSettings(statementMs: number, lockMs: number): [name: string, value: string][] {
  const settings: [string, string][] = [
    ['TimeZone', 'UTC'],
    ['idle_in_transaction_session_timeout', String(POSTGRES_TIMEOUTS.idleInTransactionMs)],
  ];
  if (statementMs > 0) settings.push(['statement_timeout', String(statementMs)]);
  // a lock wait ends before the statement would (D351 lock waits bounded below the statement timeout); 0 keeps PostgreSQL's default (no lock timeout)
  if (lockMs > 0) settings.push(['lock_timeout', String(statementMs > 0 ? Math.min(lockMs, statementMs) : lockMs)]);
  return settings;
}

/**
 * The statement that opens every transaction: BEGIN and the session's settings as SET LOCAL, in one round trip (D350,
 * "Transaction-pooler safe sessions"). SET LOCAL ends with the transaction, so nothing is left on a server connection
 * that a transaction pooler hands to another client next, and every transaction gets its bounds whether or not the
 * startup options reached the server.
 */
export function beginStatement(statementMs: number, lockMs: number): string {
  return ['BEGIN', ...sessionSettings(statementMs, lockMs).map(([name, value]) => `SET LOCAL ${name} = '${value}'`)].join('; ');
}

/**
 * A placeholder setting sent with the startup options: PostgreSQL shows it back; a pooler that accepted the options
 * and dropped them (PgBouncer's `ignore_startup_parameters = options`) does not (D350 transaction-pooler safe sessions).
 */
const SESSION_MARKER = 'paygate.direct_session';

/** PgBouncer's refusal of the `options` startup parameter (transaction pooling without ignore_startup_parameters). */
function isStartupParameterRefused(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /unsupported startup parameter/i.test(message);
}

/**
 * Open a PostgreSQL database through a `pg` Pool. Works directly against PostgreSQL and through a transaction pooler
 * (PgBouncer in transaction mode; D350): no named prepared statements, transaction-scoped settings and advisory locks
 * only, LISTEN on its own connection (`listenConnectionString`).
 */
export async function openPostgres(connectionString: string, options: PostgresOptions = {}): Promise<Db> {
  const statementMs = options.statementTimeoutMs ?? POSTGRES_TIMEOUTS.statementMs;
  const lockMs = options.lockTimeoutMs ?? POSTGRES_TIMEOUTS.lockMs;
  const makePool = (withStartupOptions: boolean): pg.Pool => {
    const pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      // The same settings as startup options, where the server takes them (PostgreSQL itself): they bound the
      // statements outside a transaction on the server too. A transaction pooler refuses them (D350 transaction-pooler safe sessions): then only each
      // transaction's SET LOCAL and the client-side bound apply.
      ...(withStartupOptions
        ? {
            options: [...sessionSettings(statementMs, lockMs), [SESSION_MARKER, 'on'] as const]
              .map(([name, value]) => `-c ${name}=${value}`)
              .join(' '),
          }
        : {}),
      types: typeParsers,
      // Every wait is bounded (D91 infrastructure failures named in one place: 503): a connection (new or from the pool) within connectionTimeoutMillis, a statement
      // within statement_timeout (server side, SQLSTATE 57014; migrations lift it for their own transaction).
      connectionTimeoutMillis: options.connectionTimeoutMs ?? POSTGRES_TIMEOUTS.connectMs,
      keepAlive: true,
    });
    // Idle clients can emit errors when the server goes away; without a listener that would crash the process.
    pool.on('error', () => undefined);
    return pool;
  };
  let pool = makePool(true);
  /**
   * A transaction pooler (PgBouncer) is in between (D350 transaction-pooler safe sessions; D352 notifications through a pooler: direct or polling): it refused the startup options, or dropped them (the
   * marker is not set), or the operator named a direct URL for LISTEN, which says DATABASE_URL is not one.
   */
  let behindPooler = options.listenConnectionString !== undefined;
  try {
    const { rows } = await pool.query<{ marker: string | null }>('SELECT current_setting($1, true) AS marker', [SESSION_MARKER]);
    if (rows[0]?.marker !== 'on') behindPooler = true;
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (!isStartupParameterRefused(err)) throw err;
    behindPooler = true;
    pool = makePool(false);
  }
  // Directly on PostgreSQL the startup options carry the settings and named statements save the parse and plan of the
  // hot reads (D86; docs/benchmarks.md#named-prepared-statements: several times the server CPU without them). Behind a pooler each transaction sets
  // them itself and every statement is unnamed (D350 transaction-pooler safe sessions).
  const names = behindPooler ? undefined : new StatementNames();
  const begin = behindPooler ? beginStatement(statementMs, lockMs) : 'BEGIN';
  // A statement outside a transaction behind a pooler carries no server-side timeout: bounded on the client, a little
  // after the server's own timeout would have ended it (the connection is then discarded).
  const autocommitTimeoutMs = behindPooler && statementMs > 0 ? statementMs + POSTGRES_TIMEOUTS.clientGraceMs : undefined;
  let closed = false;
  const batcher = new ReadBatcher(async (sql, params) => (await pool.query(queryConfig(names, sql, params, autocommitTimeoutMs))).rows);

  const db: Db = {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      // a batchable read outside a transaction (a transaction's statements go through clientDb): D178
      const form = batchedFormOf(sql);
      if (form !== undefined && params.length === form.paramCount && allStrings(params))
        return { rows: (await batcher.read(sql, form, params)) as T[] };
      const res = await pool.query(queryConfig(names, sql, params, autocommitTimeoutMs));
      return { rows: res.rows as T[] };
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const { client, onError, lostError } = await checkout(pool);
        const lost = () => lostError.value;
        let broken: unknown;
        try {
          await client.query(begin);
          const result = await fn(clientDb(client, names));
          await client.query('COMMIT');
          return result;
        } catch (err) {
          // A timeout (statement or lock, D351) leaves the connection usable: rolled back and kept, like any SQL error.
          if (lost() === undefined && (!isUnavailableError(err) || isServerTimeout(err))) {
            await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
              broken = rollbackErr;
            });
          } else {
            broken = lost() ?? err;
          }
          const code = sqlState(err);
          if (broken === undefined && code && RETRYABLE.has(code) && attempt < MAX_TX_ATTEMPTS) continue;
          // A failure of the connection itself is reported as such, whatever the statement said (D91 infrastructure failures named in one place: 503).
          throw lost() !== undefined && !isUnavailableError(err) ? lost() : err;
        } finally {
          client.off('error', onError);
          // A broken connection goes back with its error, so the pool destroys it instead of handing it out again.
          client.release((broken ?? lost()) !== undefined);
        }
      }
    },
    listen: (channel, listener) => {
      // A transaction pooler does not carry notifications (the LISTEN stays on a server connection other clients get
      // next): without a direct URL there is nothing to listen on, and callers fall back to polling (D352 notifications through a pooler: direct or polling).
      if (options.listenConnectionString === undefined && behindPooler) return Promise.reject(new NotificationsUnavailableError());
      return listenOn(options.listenConnectionString ?? connectionString, channel, listener);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  return db;
}

/** {@link Db.listen} behind a transaction pooler with no direct URL to listen on (D352 notifications through a pooler: direct or polling). */
export class NotificationsUnavailableError extends Error {
  constructor() {
    super(
      'DATABASE_URL is a transaction pooler, which does not carry LISTEN/NOTIFY: set DATABASE_DIRECT_URL to a direct ' +
        'PostgreSQL URL for instant wake-ups; until then the gateway polls',
    );
    this.name = 'NotificationsUnavailableError';
  }
}

/** A statement or lock timeout of the server (57014, 55P03): the statement failed, the connection is fine (D351 lock waits bounded below the statement timeout). */
function isServerTimeout(err: unknown): boolean {
  const code = sqlState(err);
  return code === '57014' || code === '55P03';
}
