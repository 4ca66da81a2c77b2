/**
 * Reads whose results the embedded database may answer from memory (D167 PGlite read cache for cacheable reads). A statement is registered here by the
 * service that owns it, and only when its result is a function of the database's rows alone: read-only, no `now()`,
 * no random or volatile function. Time-dependent decisions (an order's expiry) are made by the caller on the rows, at
 * the time of each request. The PostgreSQL adapter ignores the registry (other processes write to its database).
 *
 * This module imports nothing: a service marks its statements without loading either adapter.
 */
const registered = new Map<string, number>();

/** Mark `sql` as a cacheable read (see above) and return it unchanged. */
export function cacheableRead(sql: string): string {
  if (!registered.has(sql)) registered.set(sql, registered.size);
  return sql;
}

/** The registry id of a cacheable read, or undefined when `sql` is not one. */
export function cacheableReadId(sql: string): number | undefined {
  return registered.get(sql);
}

/** Most results kept; the oldest go first (a bound on memory, not a policy). */
export const READ_CACHE_MAX_ENTRIES = 1024;

/** Freeze `value` and everything it holds (rows handed to several callers: D167, D178). */
export function deepFreeze(value: unknown): void {
  // a typed array (a bytea column) cannot be frozen while it has elements: Object.freeze throws; it is left as read
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * The results of cacheable reads on ONE embedded database, valid until any other statement runs on it. PGlite is a
 * single connection inside this process (its data directory is locked to it), so every change to its rows goes
 * through the adapter, which calls {@link invalidate} when a statement or transaction that may write starts and when
 * it ends. A read that was issued before an invalidation does not store its result (the `generation` check): it may
 * have read the rows as they were before the change. Statements run one at a time, in the order they are issued, so a
 * read issued after an invalidation runs after the statement that caused it.
 *
 * Cached rows are frozen (deeply): every caller gets the same objects, so a caller that tried to change one would
 * throw instead of changing the answer of the next request.
 */
export class ReadCache {
  private readonly entries = new Map<string, readonly unknown[]>();
  private generation = 0;

  constructor(private readonly maxEntries = READ_CACHE_MAX_ENTRIES) {}

  /** Number of cached results (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** Drop every cached result: something may have changed the database. */
  invalidate(): void {
    this.generation++;
    if (this.entries.size > 0) this.entries.clear();
  }

  /** The rows of the read `id` with `params`: cached, else `load()`'s (stored unless invalidated meanwhile). */
  async read<T>(id: number, params: readonly (string | number | null)[], load: () => Promise<T[]>): Promise<T[]> {
    const key = `${id}:${JSON.stringify(params)}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as T[];
    const generation = this.generation;
    const rows = await load();
    if (generation === this.generation) {
      deepFreeze(rows);
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, rows);
    }
    return rows;
  }
}
