/** Walking a request body's schema by pointer: a property's schema, the properties an `allOf` brings together. */
import { isObj, token, type Resolver } from '../document.js';
import type { Json } from '../samples.js';

/** The pointer of a property's schema inside the schema at `at` (allOf/oneOf/anyOf searched). */
export function childPointer(r: Resolver, at: string, name: string, depth = 0): string | undefined {
  if (depth > 6) return undefined;
  const f = r.follow(r.at(at), at);
  const n = f.node;
  if (!isObj(n)) return undefined;
  if (isObj(n['properties']) && n['properties'][name] !== undefined) return `${f.at}/properties/${token(name)}`;
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const parts = n[key];
    if (Array.isArray(parts))
      for (let i = 0; i < parts.length; i++) {
        const found = childPointer(r, `${f.at}/${key}/${i}`, name, depth + 1);
        if (found) return found;
      }
  }
  if (n['items'] !== undefined && /^\d+$/.test(name)) return `${f.at}/items`;
  return undefined;
}

/** The properties of the schema at `at`, its `allOf` parts' included. */
export function collectProperties(r: Resolver, at: string): Record<string, Json> {
  const f = r.follow(r.at(at), at);
  const out: Record<string, Json> = {};
  if (!isObj(f.node)) return out;
  for (const key of ['allOf'] as const) {
    const parts = f.node[key];
    if (Array.isArray(parts)) parts.forEach((_, i) => Object.assign(out, collectProperties(r, `${f.at}/${key}/${i}`)));
  }
  if (isObj(f.node['properties'])) Object.assign(out, f.node['properties']);
  return out;
}
