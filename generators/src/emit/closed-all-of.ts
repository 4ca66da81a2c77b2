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
import { isObj } from '../util/json.js';
import type { ResolveRef } from './read-only.js';
import { rewriteSchemas } from './schema-rewrite.js';

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
  return rewriteSchemas(schema, (node) => {
    if (node['additionalProperties'] !== false || !Array.isArray(node['allOf'])) return undefined;
    const names = new Set<string>();
    for (const member of node['allOf']) declaredNames(member, resolve, 0, names);
    const own = isObj(node['properties']) ? node['properties'] : {};
    const missing = [...names].filter((name) => !Object.hasOwn(own, name));
    return missing.length === 0 ? undefined : { properties: { ...own, ...Object.fromEntries(missing.map((name) => [name, true])) } };
  });
}
