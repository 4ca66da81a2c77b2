/**
 * The JSON vocabulary of the generators: what a JSON object is, how a JSON Pointer (RFC 6901) is written and read,
 * and which JSON Schema keywords hold subschemas. One definition for every parser, model builder, emitter and the
 * diff (a second copy fails `test/spec/one-definition.test.ts`).
 *
 * Why not `@paygate/contract/json`, the runtimes' copy: the generators run from source (`tsx`, no `source` export
 * condition) before any workspace package is built, and `@paygate/cli` must not need a built runtime to generate one.
 * The two files are kept equal by `test/spec/one-definition.test.ts`.
 */

/** A JSON object as parsed (or a schema node): string keys, unknown values. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object: not null, not an array. */
export const isObj = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One reference token escaped for a JSON Pointer (`~` → `~0`, `/` → `~1`, in that order: RFC 6901 §3). */
export const escapePointerToken = (token: string | number): string => String(token).replace(/~/g, '~0').replace(/\//g, '~1');

/** One reference token read back (`~1` → `/`, then `~0` → `~`: RFC 6901 §4). */
export const unescapePointerToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * A JSON Pointer (`/a/b~1c`) from its unescaped tokens; `[]` is the whole document (``).
 * @public `@paygate/contract/json` API (the generators' copy mirrors it)
 */
export const pointerOf = (tokens: readonly (string | number)[]): string => tokens.map((t) => `/${escapePointerToken(t)}`).join('');

/**
 * `pointer` (a JSON Pointer, or a URI fragment `#/...`) with more unescaped tokens: `childPointer('#/paths', '/a')` is
 * `#/paths/~1a`.
 * @public `@paygate/contract/json` API (the generators' copy mirrors it)
 */
export const childPointer = (pointer: string, ...tokens: readonly (string | number)[]): string => pointer + pointerOf(tokens);

/**
 * The unescaped tokens of a JSON Pointer, with or without the `#` of a URI fragment.
 * @public `@paygate/contract/json` API (the generators' copy mirrors it)
 */
export function pointerTokens(pointer: string): string[] {
  const bare = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (bare === '') return [];
  return bare.slice(1).split('/').map(unescapePointerToken);
}

/**
 * The value a JSON Pointer names in a document (`#/paths/~1a/get` or `/paths/~1a/get`; a URI fragment's
 * percent-encoding decoded, an array's item by its index), undefined where the document has none.
 * @public `@paygate/contract/json` API (the generators' copy mirrors it)
 */
export function valueAtPointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.replace(/^#\/?/, '').split('/')) {
    if (raw === '') continue;
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // a `%` that starts no escape is the token's own character
    }
    const key = unescapePointerToken(decoded);
    node = Array.isArray(node) ? node[Number(key)] : isObj(node) ? node[key] : undefined;
  }
  return node;
}

/**
 * JSON Schema 2020-12 keywords (with draft-04's `definitions` and `additionalItems`, which OpenAPI 3.0 documents use)
 * that hold one subschema, a list of them, or a map of them. Everything else is data: an `enum`, a `default`, an
 * `example`, and the names in a `properties` map are never schemas.
 */
export const SUBSCHEMA_KEYWORDS = {
  one: new Set([
    'items',
    'additionalProperties',
    'not',
    'contains',
    'propertyNames',
    'if',
    'then',
    'else',
    'unevaluatedProperties',
    'unevaluatedItems',
    'additionalItems',
  ]),
  list: new Set(['oneOf', 'anyOf', 'allOf', 'prefixItems']),
  map: new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']),
} as const;

/**
 * A copy of `schema` with `visit` applied to each direct subschema (found by `SUBSCHEMA_KEYWORDS`); every other
 * keyword is copied as is. `items` as an array (draft-04 tuples) is visited element by element.
 * @public `@paygate/contract/json` API (the generators' copy mirrors it)
 */
export function mapDirectSubschemas(schema: JsonObject, visit: (sub: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_KEYWORDS.one.has(key)) out[key] = Array.isArray(value) ? value.map(visit) : visit(value);
    else if (SUBSCHEMA_KEYWORDS.list.has(key) && Array.isArray(value)) out[key] = value.map(visit);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, visit(sub)]));
    else out[key] = value;
  }
  return out;
}
