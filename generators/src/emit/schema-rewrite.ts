/**
 * One copy-on-write rewrite of a schema tree, for the request validators' readings of a body schema (D453 readOnly
 * properties not required in requests, D454 additionalProperties false beside allOf counts the members' properties):
 * each schema's own change first, then its subschemas (every schema position of the one keyword table), the same way.
 * A schema nothing changes in is returned as it is (the same object), so unchanged trees cost no copies.
 */
import { isObj, SUBSCHEMA_KEYWORDS } from '../util/json.js';

type Obj = Record<string, unknown>;

/** The keywords to replace in one schema (undefined as a value: leave the keyword out), or undefined for none. */
export type OwnChange = (schema: Obj) => Obj | undefined;

/** `schema` with `own` applied to it and to every subschema below it. */
export function rewriteSchemas(schema: unknown, own: OwnChange): unknown {
  const recurse = (sub: unknown): unknown => rewriteSchemas(sub, own);
  if (Array.isArray(schema)) {
    const mapped = schema.map(recurse);
    return mapped.some((m, i) => m !== schema[i]) ? mapped : schema;
  }
  if (!isObj(schema)) return schema;
  const changes = own(schema);
  let base: Obj = schema;
  if (changes !== undefined && Object.keys(changes).length > 0) {
    base = { ...schema, ...changes };
    for (const [key, value] of Object.entries(changes)) if (value === undefined) delete base[key];
  }
  let out: Obj | undefined;
  for (const [key, value] of Object.entries(base)) {
    let next = value;
    if (SUBSCHEMA_KEYWORDS.one.has(key) || SUBSCHEMA_KEYWORDS.list.has(key)) next = recurse(value);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value)) {
      const entries = Object.entries(value).map(([name, sub]) => [name, recurse(sub)] as const);
      if (entries.some(([name, sub]) => sub !== value[name])) next = Object.fromEntries(entries);
    }
    if (next !== value) (out ??= { ...base })[key] = next;
  }
  return out ?? base;
}
