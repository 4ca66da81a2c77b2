/**
 * Honest storage failures (D361 running out of a resource classified): is this error the database running out of a resource (a full disk, memory, a quota,
 * a configured limit) rather than a bug or a business rule? Such a failure is answered like an outage, 503
 * ERR_UNAVAILABLE_503 with Retry-After (`http/errors.ts`), never an undeclared 500, and it takes the process out of
 * rotation until a write succeeds again (`storage-health.ts`, read by `/readyz`).
 *
 * Kept apart from `unavailable.ts` on purpose: a connection that saw a full disk is healthy (the next statement may
 * succeed once space returns), so it is not released as broken the way a lost connection is.
 *
 * Recognised, on the error itself, its `cause` chain or the members of an AggregateError:
 * - PostgreSQL SQLSTATE class 53 (insufficient resources): 53000 insufficient_resources, 53100 disk_full,
 *   53200 out_of_memory, 53300 too_many_connections, 53400 configuration_limit_exceeded. PostgreSQL (and PGlite, the
 *   same server compiled to WebAssembly, whose file writes go through Node's fs) reports a write that hit ENOSPC as
 *   53100 "could not extend file ...: No space left on device";
 * - a Node file-system error `code` ENOSPC (no space left) or EDQUOT (quota exceeded), e.g. the data directory's
 *   lock file or an uploaded document;
 * - Emscripten's file-system error as PGlite's JavaScript side throws it: `{ name: 'ErrnoError', errno: 51 }` (51 is
 *   ENOSPC in Emscripten's errno table; Node's `code` is not kept);
 * - a server message that says so without a class-53 code (a PANIC of a WAL write reported with another SQLSTATE):
 *   "No space left on device", "Disk quota exceeded".
 */

/** Node `code`s of a file system that is full (or over quota). */
const EXHAUSTED_FS_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);
/** Emscripten's errno numbers (its ERRNO_CODES table, as in PGlite's build) for ENOSPC and EDQUOT. */
const EMSCRIPTEN_EXHAUSTED_ERRNOS: ReadonlySet<number> = new Set([51, 19]);
const EXHAUSTED_MESSAGES: readonly RegExp[] = [/No space left on device/i, /Disk quota exceeded/i];

function isExhaustedHere(err: object): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^53[0-9A-Z]{3}$/.test(code)) return true;
    if (EXHAUSTED_FS_CODES.has(code)) return true;
  }
  const { name, errno } = err as { name?: unknown; errno?: unknown };
  if (name === 'ErrnoError' && typeof errno === 'number' && EMSCRIPTEN_EXHAUSTED_ERRNOS.has(errno)) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && EXHAUSTED_MESSAGES.some((re) => re.test(message));
}

/** Whether `err` says the database (or its disk) ran out of a resource: 503 territory, not a bug (D361 running out of a resource classified). */
export function isResourceExhaustedError(err: unknown): boolean {
  const seen = new Set<object>();
  const visit = (e: unknown): boolean => {
    if (typeof e !== 'object' || e === null || seen.has(e)) return false;
    seen.add(e);
    if (isExhaustedHere(e)) return true;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some(visit)) return true;
    return visit((e as { cause?: unknown }).cause);
  };
  return visit(err);
}
