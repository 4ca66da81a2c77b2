/**
 * Property coverage (D275 response coverage of declared paths): per response schema that was answered at least once, the declared properties that no
 * answer carried. An optional field the implementation never returns passes every schema check (and the compiler); it
 * shows here (`data.invoice.file`, `results[].refunds[]`), and `failOnUnseenProperties` makes it a failure.
 */
import { isObj } from './document.js';
import type { Deref, Json } from './samples.js';

/** Every property path a schema declares (allOf merged, oneOf/anyOf branches united, array items as `[]`). */
export function declaredPaths(schema: Json | undefined, deref: Deref): string[] {
  const out = new Set<string>();
  const walk = (node: Json | undefined, prefix: string, depth: number, seen: Set<unknown>): void => {
    const s = deref(node);
    if (!isObj(s) || depth > 8 || seen.has(s)) return;
    const inner = new Set(seen).add(s);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const parts = s[key];
      if (Array.isArray(parts)) for (const part of parts) walk(part, prefix, depth + 1, inner);
    }
    if (s['items'] !== undefined) walk(s['items'], `${prefix}[]`, depth + 1, inner);
    if (isObj(s['properties']))
      for (const [name, child] of Object.entries(s['properties'])) {
        const path = prefix === '' ? name : `${prefix}.${name}`;
        out.add(path);
        walk(child, path, depth + 1, inner);
      }
  };
  walk(schema, '', 0, new Set());
  return [...out];
}

/** Every property path a JSON value carries (null values count: the property was there). */
export function presentPaths(value: Json | undefined, into: Set<string>, prefix = '', depth = 0): void {
  if (depth > 10 || value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) presentPaths(item, into, `${prefix}[]`, depth + 1);
    return;
  }
  if (!isObj(value)) return;
  for (const [name, child] of Object.entries(value)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    into.add(path);
    presentPaths(child, into, path, depth + 1);
  }
}

export interface UnseenProperties {
  operationId: string;
  status: string;
  mediaType: string;
  schemaAt: string;
  unseen: string[];
}

/** Seen property paths per (operation, status key, media type, schema pointer). */
export class PropertyCoverage {
  private readonly seen = new Map<
    string,
    { operationId: string; status: string; mediaType: string; schemaAt: string; paths: Set<string> }
  >();

  record(operationId: string, status: string, mediaType: string, schemaAt: string, body: Json): void {
    const key = `${operationId} ${status} ${mediaType}`;
    let entry = this.seen.get(key);
    if (entry === undefined) this.seen.set(key, (entry = { operationId, status, mediaType, schemaAt, paths: new Set() }));
    presentPaths(body, entry.paths);
  }

  unseen(schemaOf: (pointer: string) => Json | undefined, deref: Deref): UnseenProperties[] {
    const out: UnseenProperties[] = [];
    for (const e of this.seen.values()) {
      const missing = new Set(declaredPaths(schemaOf(e.schemaAt), deref).filter((p) => !e.paths.has(p)));
      // a property under one never seen is not listed again
      const unseen = [...missing].filter((p) => ![...missing].some((q) => q !== p && (p.startsWith(`${q}.`) || p.startsWith(`${q}[]`))));
      if (unseen.length > 0)
        out.push({ operationId: e.operationId, status: e.status, mediaType: e.mediaType, schemaAt: e.schemaAt, unseen });
    }
    return out;
  }
}
