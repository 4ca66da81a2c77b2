/**
 * A `$ref` the type layer cannot index replaced by a copy of its target, once, before anything reads the document
 * (D412 a $ref into a parameter, a media type or a schema's keywords is copied in place): a ref to a schema held by an
 * object that is not a schema (`#/components/parameters/companyId/schema`, a media type's
 * `.../content/application~1json/schema`), and a ref into a component schema's keywords other than its properties
 * (`#/components/schemas/X/definitions/Y`, `.../allOf/1`).
 *
 * Codat's webhook payloads (codat.io in the APIs.guru directory) name a path parameter's schema so. JSON Schema
 * tools resolve such a pointer against the whole document, but Paygate's validators (request bodies, webhook events)
 * compile the component schemas under one `$defs` root, where it resolves to nothing: the webhook validators refused
 * the document and a request body holding one was left unvalidated. openapi-typescript writes these refs as indexed
 * types (`components["parameters"]["companyId"]["schema"]`, `components["schemas"]["X"]["definitions"]["Y"]`) of
 * objects it has already turned into the schema's own type, which do not compile. A copy says the same and every
 * reader takes it; a ref to a component schema or to one of its properties stays a ref, and so do refs to whole
 * components (`#/components/parameters/companyId`).
 */
import { isObj, pointerTokens } from '../util/json.js';

type Obj = Record<string, unknown>;

/** Keys whose values are data, not OpenAPI objects: a `$ref` inside them is a value like any other. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);
/** Objects whose keys are names (a property called `default`, the `default` response), never keywords or data. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'schemas',
  'responses',
  'parameters',
  'headers',
  'requestBodies',
  'callbacks',
  'pathItems',
  'paths',
  'webhooks',
  'content',
  'encoding',
]);

/**
 * Whether a `$ref` is copied in place: it names a schema inside an object that is not a schema (a `schema` token below
 * a named component or an operation: `components/<type>/<name>/.../schema`, `paths/<path>/<method>/.../schema`), or a
 * part of a component schema other than its properties (`components/schemas/<name>/definitions/<x>`, `.../allOf/1`,
 * `.../items`). A component schema itself and its properties (`.../properties/<a>/properties/<b>`) stay refs.
 */
export function isCopiedRef(ref: string): boolean {
  if (!ref.startsWith('#/')) return false;
  const tokens = pointerTokens(ref);
  if (tokens[0] === 'components' && tokens[1] === 'schemas') return tokens.slice(3).some((t, i) => i % 2 === 0 && t !== 'properties');
  return tokens.indexOf('schema', 3) !== -1;
}

/** A token of a pointer written as a URI fragment, percent-decoded (`~1api~1lei~1%7Bnumber%7D`: Brex's refs into its paths). */
function decoded(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** The value at a pointer of the document, or undefined. */
function at(document: unknown, ref: string): unknown {
  let node = document;
  for (const token of pointerTokens(ref)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObj(node) && Object.hasOwn(node, token)) node = node[token];
    else if (isObj(node) && Object.hasOwn(node, decoded(token))) node = node[decoded(token)];
    else return undefined;
  }
  return node;
}

/**
 * The document with each such `$ref` replaced by a copy of its target (sibling keywords beside the `$ref` kept over
 * the copy's), `inlined` the pointers copied; the document itself when it has none. A target that reaches itself
 * through such refs ends in `{}` (any value), as the typed model ends a cycle of copied refs (D476 a ref to a named
 * schema is a ref node, other refs copied in place); a ref that resolves to nothing stays as written.
 */
export function inlineSchemaRefs<T>(document: T): { document: T; inlined: string[] } {
  const inlined = new Set<string>();
  const copies = new Map<string, unknown>();
  const expanding: string[] = [];

  const copyOf = (ref: string): unknown => {
    const done = copies.get(ref);
    if (done !== undefined) return done;
    if (expanding.includes(ref)) return {};
    const target = at(document, ref);
    if (target === undefined) return undefined;
    expanding.push(ref);
    const copy = visit(target, 0, '');
    expanding.pop();
    copies.set(ref, copy);
    inlined.add(ref);
    return copy;
  };

  function visit(node: unknown, depth: number, parentKey: string): unknown {
    if (depth > 512 || node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, i) => {
        const next = visit(item, depth + 1, '');
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      return copy ?? node;
    }
    const obj = node as Obj;
    if (typeof obj.$ref === 'string' && isCopiedRef(obj.$ref)) {
      const target = copyOf(obj.$ref);
      if (target !== undefined) {
        const { $ref: _ref, ...siblings } = obj;
        return Object.keys(siblings).length === 0
          ? target
          : { ...(isObj(target) ? target : {}), ...(visit(siblings, depth + 1, parentKey) as Obj) };
      }
    }
    const names = NAME_MAPS.has(parentKey);
    let copy: Obj | undefined;
    for (const key in obj) {
      if (!Object.hasOwn(obj, key) || (!names && (key.startsWith('x-') || DATA_KEYS.has(key)))) continue;
      const value = obj[key];
      const next = visit(value, depth + 1, names ? '' : key);
      if (next !== value) (copy ??= { ...obj })[key] = next;
    }
    return copy ?? node;
  }

  const out = visit(document, 0, '') as T;
  return { document: out, inlined: [...inlined].sort() };
}
