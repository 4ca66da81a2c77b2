/**
 * Determinism helpers. Every emitter and the model builder iterate objects through
 * `sortedEntries` so output never depends on insertion order of the input document.
 */

/** Code-point comparison (not locale-aware), so the order is identical on every machine. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Entries of a plain object sorted by key (code-point order). Non-objects yield []. */
export function sortedEntries<T>(record: Readonly<Record<string, T>> | undefined | null): [string, T][] {
  if (record === undefined || record === null || typeof record !== 'object') return [];
  return Object.keys(record)
    .sort(compareStrings)
    .map((key) => [key, record[key] as T]);
}

/** Recursively sorts object keys (arrays keep their order): for embedding JSON deterministically. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of sortedEntries(value as Record<string, unknown>)) out[key] = sortKeysDeep(inner);
    return out;
  }
  return value;
}

/** Stable sort by a string key. */
export function sortBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareStrings(key(a), key(b)));
}
