/**
 * The one database interface every service uses. Two adapters implement it with the SAME SQL:
 * PGlite (embedded, single connection, transactions serialise) and PostgreSQL through a `pg` Pool
 * (many connections; services rely on row locks and unique constraints for cross-process safety).
 *
 * Value conventions of both adapters (see ./types.ts):
 * - timestamptz comes back as an ISO 8601 UTC string with microseconds and `Z` (2026-11-21T10:15:30.123456Z);
 * - int8 (bigint, count(*)) comes back as a JS number and throws if it is not a safe integer;
 * - date comes back as `YYYY-MM-DD`; numeric as its text; json/jsonb parsed.
 */
export interface QueryResult<T> {
  rows: T[];
}

export interface Db {
  /** Run one parameterised statement ($1, $2, ...). */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Run a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Run `fn` inside one transaction (READ COMMITTED). Commits when `fn` resolves, rolls back when it throws.
   * Calling `transaction` on a transaction handle joins the outer transaction.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Receive `NOTIFY <channel>` payloads (committed notifications from any session of this database). PostgreSQL: a
   * dedicated connection outside the pool that reconnects by itself; PGlite: the embedded database's own listener.
   * `onReady` runs each time notifications start flowing (first connect and every reconnect, after which anything
   * sent while disconnected is lost), `onLost` when they stop. Resolves with a function that stops listening.
   */
  listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>>;
  /** Release connections / close the embedded database. Idempotent. */
  close(): Promise<void>;
  /** Which adapter this is (for diagnostics). */
  readonly kind: 'pglite' | 'postgres';
}

/** What {@link Db.listen} reports to. */
export interface ChannelListener {
  onNotify(payload: string): void;
  onReady(): void;
  onLost(err?: unknown): void;
}

/** The SQLSTATE code of a database error thrown by either adapter, if any. */
export function sqlState(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
