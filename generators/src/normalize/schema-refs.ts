/**
 * A `$ref` to a schema held by an object that is not a schema (`#/components/parameters/companyId/schema`, a media
 * type's `.../content/application~1json/schema`) replaced by a copy of that schema, once, before anything reads the
 * document (D412 a $ref to the schema of a parameter or media type is copied in place).
 *
 * Codat's webhook payloads (codat.io in the APIs.guru directory) name a path parameter's schema so. JSON Schema
 * tools resolve such a pointer against the whole document, but Paygate's validators (request bodies, webhook events)
 * compile the component schemas under one `$defs` root, where it resolves to nothing: the webhook validators refused
 * the document and a request body holding one was left unvalidated. openapi-typescript writes it as an indexed
 * type (`components["parameters"]["companyId"]["schema"]`) of an object it has already turned into the schema's own
 * type, which does not compile. A copy says the same and every reader takes it; a ref to a component schema (or
 * into one) stays a ref, and so do refs to whole components (`#/components/parameters/companyId`).
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
 * Whether a pointer names a schema inside an object that is not one: a `schema` token below a named component or an
 * operation (`components/<type>/<name>/.../schema`, `paths/<path>/<method>/.../schema`), outside `components/schemas`.
 */
export function isSchemaOfNonSchema(ref: string): boolean {
  if (!ref.startsWith('#/')) return false;
  const tokens = pointerTokens(ref);
  if (tokens[0] === 'components' && tokens[1] === 'schemas') return false;
  return tokens.indexOf('schema', 3) !== -1;
}

/** The value at a pointer of the document, or undefined. */
function at(document: unknown, ref: string): unknown {
  let node = document;
  for (const token of pointerTokens(ref)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObj(node) && Object.hasOwn(node, token)) node = node[token];
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
    if (typeof obj.$ref === 'string' && isSchemaOfNonSchema(obj.$ref)) {
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
