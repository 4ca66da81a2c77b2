/** The error codes a spec enumerates and its `x-error-catalogue` (the docs' errors page, the contract's `ErrorCode`). */
import { isObj } from '../util/json.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import { str } from './raw.js';
import { RefResolver } from './ref-resolver.js';
import type { ErrorCatalogueEntry } from './types.js';

type Obj = Record<string, unknown>;

/**
 * Collects error codes: `x-error-codes` (array or object keys) and `x-error-catalogue` keys anywhere, string enums of
 * component schemas named like `ErrorCode`, and the (ref-resolved) `code` enum of error schemas.
 */
export function collectErrorCodes(doc: Obj): string[] {
  const resolver = new RefResolver(doc);
  const codes = new Set<string>();
  const addEnum = (schema: unknown): void => {
    let resolved: unknown;
    try {
      resolved = resolver.deref(schema);
    } catch {
      return;
    }
    if (isObj(resolved) && Array.isArray(resolved.enum)) for (const c of resolved.enum) if (typeof c === 'string') codes.add(c);
  };
  const visit = (node: unknown, pointer: string, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      node.forEach((v, i) => visit(v, `${pointer}/${i}`, depth + 1));
      return;
    }
    if (!isObj(node)) return;
    for (const key of ['x-error-codes', 'x-error-catalogue']) {
      const ext = node[key];
      if (Array.isArray(ext)) for (const c of ext) if (typeof c === 'string') codes.add(c);
      if (isObj(ext)) for (const c of Object.keys(ext)) codes.add(c);
    }
    if (/error/i.test(pointer) && isObj(node.properties) && node.properties.code !== undefined) addEnum(node.properties.code);
    for (const [key, value] of Object.entries(node))
      if (key !== 'examples' && key !== 'example') visit(value, `${pointer}/${key}`, depth + 1);
  };
  const components = isObj(doc.components) ? doc.components : {};
  for (const [name, schema] of sortedEntries(isObj(components.schemas) ? components.schemas : {})) {
    if (/error_?code/i.test(name)) addEnum(schema);
  }
  visit(doc.components, '#/components', 0);
  visit(doc.paths, '#/paths', 0);
  visit(doc['x-error-codes'] === undefined ? undefined : { 'x-error-codes': doc['x-error-codes'] }, '#', 0);
  return [...codes].sort(compareStrings);
}

/** `x-error-catalogue` objects anywhere in components (code -> { status, when }), sorted by code. */
export function collectErrorCatalogue(doc: Obj): ErrorCatalogueEntry[] {
  const entries = new Map<string, ErrorCatalogueEntry>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (const v of node) visit(v, depth + 1);
      return;
    }
    if (!isObj(node)) return;
    const catalogue = node['x-error-catalogue'];
    if (isObj(catalogue)) {
      for (const [code, entry] of sortedEntries(catalogue)) {
        if (entries.has(code)) continue;
        entries.set(code, {
          code,
          status: isObj(entry) && typeof entry.status === 'number' ? entry.status : undefined,
          when: isObj(entry) ? str(entry.when) : undefined,
        });
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'examples' && key !== 'example') visit(value, depth + 1);
  };
  visit(doc.components, 0);
  return [...entries.values()].sort((a, b) => compareStrings(a.code, b.code));
}
