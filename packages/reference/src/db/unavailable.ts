/**
 * THE classification of infrastructure failures (D91 infrastructure failures named in one place: 503): is this error the database (or the network to it) being away,
 * rather than a bug or a business rule? Such a failure is answered 503 ERR_UNAVAILABLE_503 with Retry-After
 * (`http/errors.ts`), never 500 and never 401, and a connection that saw one is released as broken (`postgres.ts`).
 *
 * Recognised, on the error itself, its `cause` chain or the members of an AggregateError (Node's happy-eyeballs
 * connect reports one per address):
 * - socket errors: refused, reset, aborted, broken pipe, timed out, host or network unreachable, DNS failure;
 * - PostgreSQL SQLSTATE class 08 (connection exception), 57P01 admin_shutdown (pg_terminate_backend, a pooler
 *   restart), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, in recovery), 53300 too_many_connections
 *   and 57014 query_canceled (the statement timeout, or a cancel from an operator); 55P03 lock_not_available (the
 *   lock timeout);
 * - node-postgres' own messages for a connection lost or never made: "Connection terminated ...", a client that "is
 *   not queryable", the pool's checkout timeout, a read timeout of a query.
 */

/** Socket-level error codes of Node (`err.code`) that mean the peer is unreachable or the connection broke. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATEs (besides class 08) that mean "this session or server cannot serve you now; another attempt may". */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/**
 * 55P03 lock_not_available: a lock wait reached the transaction's lock_timeout (D351, "Lock waits bounded below the
 * statement timeout"). Another request holds the row; retrying shortly succeeds, so it is answered like a statement
 * timeout: 503 with Retry-After, never 500.
 */
const LOCK_TIMEOUT_SQLSTATE = '55P03';

/** node-postgres / pg-pool messages for a lost or unobtainable connection (they carry no code). */
const UNAVAILABLE_MESSAGES: readonly RegExp[] = [
  /^Connection terminated\b/, // "... unexpectedly", "... due to connection timeout"
  /is not queryable$/, // "Client has encountered a connection error and is not queryable", "Client was closed and ..."
  /^timeout exceeded when trying to connect$/, // pool checkout (connectionTimeoutMillis)
  /^Query read timeout$/, // query_timeout
  /^Cannot use a pool after calling end on the pool$/, // shutting down
];

function codeOf(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function isUnavailableHere(err: object): boolean {
  const code = codeOf(err);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) return true;
    if (code === LOCK_TIMEOUT_SQLSTATE) return true;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message));
}

/** Whether `err` says the database (or the network to it) is unavailable: 503 territory, not a bug (D91 infrastructure failures named in one place: 503). */
export function isUnavailableError(err: unknown): boolean {
  const seen = new Set<object>();
  const visit = (e: unknown): boolean => {
    if (typeof e !== 'object' || e === null || seen.has(e)) return false;
    seen.add(e);
    if (isUnavailableHere(e)) return true;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some(visit)) return true;
    return visit((e as { cause?: unknown }).cause);
  };
  return visit(err);
}
