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
  /** Release connections / close the embedded database. Idempotent. */
  close(): Promise<void>;
  /** Which adapter this is (for diagnostics). */
  readonly kind: 'pglite' | 'postgres';
}

/** SQLSTATE of a unique-constraint violation. */
export const UNIQUE_VIOLATION = '23505';

/** The SQLSTATE code of a database error thrown by either adapter, if any. */
export function sqlState(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
