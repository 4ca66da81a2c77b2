/**
 * `additionalProperties: false` beside an `allOf` read as its author meant it: the properties its members declare are
 * not additional (decision D454: additionalProperties false beside allOf counts the members' properties).
 *
 * JSON Schema's `additionalProperties` sees only the `properties` written beside it, so ShipEngine's
 * `{additionalProperties: false, allOf: [{$ref: account_settings_images}], required: [name, ...]}` accepts no body at
 * all: every property is additional, and `name` is required. The author closed the composition, as JSON Schema
 * 2019-09's `unevaluatedProperties: false` does; OpenAPI 3.0 documents (draft-04 semantics, Ajv's draft-07 class) have
 * no such keyword. So the member's property names are added to the closed schema's own `properties` as `true`
 * (anything, the member still checks the value): the object stays closed to every other name.
 */
import { isObj, SUBSCHEMA_KEYWORDS } from '../util/json.js';
import type { ResolveRef } from './read-only.js';

type Obj = Record<string, unknown>;

/** The property names a schema declares, through `$ref`s and its own `allOf`/`oneOf`/`anyOf` members. */
function declaredNames(schema: unknown, resolve: ResolveRef, depth: number, into: Set<string>): void {
  if (!isObj(schema) || depth > 16) return;
  if (typeof schema['$ref'] === 'string') declaredNames(resolve(schema['$ref']), resolve, depth + 1, into);
  if (isObj(schema['properties'])) for (const name of Object.keys(schema['properties'])) into.add(name);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    if (Array.isArray(schema[key])) for (const member of schema[key]) declaredNames(member, resolve, depth + 1, into);
}

/** `schema` (a copy where something changed) with every closed `allOf` composition's member properties declared. */
export function closedAllOfDeclared(schema: unknown, resolve: ResolveRef): unknown {
  const recurse = (sub: unknown): unknown => closedAllOfDeclared(sub, resolve);
  if (Array.isArray(schema)) {
    const mapped = schema.map(recurse);
    return mapped.some((m, i) => m !== schema[i]) ? mapped : schema;
  }
  if (!isObj(schema)) return schema;
  let out: Obj | undefined;
  const set = (key: string, value: unknown) => {
    (out ??= { ...schema })[key] = value;
  };
  if (schema['additionalProperties'] === false && Array.isArray(schema['allOf'])) {
    const names = new Set<string>();
    for (const member of schema['allOf']) declaredNames(member, resolve, 0, names);
    const own = isObj(schema['properties']) ? schema['properties'] : {};
    const missing = [...names].filter((name) => !Object.hasOwn(own, name));
    if (missing.length > 0) set('properties', { ...own, ...Object.fromEntries(missing.map((name) => [name, true])) });
  }
  for (const [key, value] of Object.entries(schema)) {
    let next = value;
    if (SUBSCHEMA_KEYWORDS.one.has(key) || SUBSCHEMA_KEYWORDS.list.has(key)) next = recurse(value);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value)) {
      const current = key === 'properties' && out !== undefined && isObj(out['properties']) ? out['properties'] : value;
      const entries = Object.entries(current).map(([name, sub]) => [name, recurse(sub)] as const);
      if (entries.some(([name, sub]) => sub !== current[name])) next = Object.fromEntries(entries);
      else if (current !== value) continue;
    }
    if (next !== value) set(key, next);
  }
  return out ?? schema;
}
