/**
 * A schema `$ref` to anywhere but `#/components/schemas/` replaced by a copy of what it points at, once, before
 * anything reads the document (decision D452: schema refs outside components inlined).
 *
 * Real documents point a schema at another operation's schema (Conjur's
 * `#/paths/~1authn-jwt~1%7Bservice_id%7D~1.../requestBody/content/application~1x-www-form-urlencoded/schema`) or at a
 * parameter's (`#/components/parameters/Id/schema`, Codat's). Both are valid references; openapi-typescript types them
 * as an index into `paths` or `components`. Every reader after this step (the model, the request validators, the
 * webhook validators, the docs) resolves schema refs against the component schemas only, the names it can emit, so
 * such a ref is made one: the target is copied in its place (its own refs kept, those into components as they are).
 * So is a ref into a component schema's keywords (`#/components/schemas/X/definitions/Y`, D412), which the type layer
 * cannot index. A ref that leads back into itself through such copies is left as written (copying it would never end).
 */
import { isObj, pointerOf, unescapePointerToken } from '../util/json.js';
import { isSchemaPosition } from './schema-keywords.js';

const COMPONENT_SCHEMA = '#/components/schemas/';

export interface InlinedRef {
  /** Where the ref was (JSON pointer in the document). */
  pointer: string;
  ref: string;
}

/** The node a local ref points at (`#/a/b~1c`, percent-encoded as a URI fragment may be), or undefined. */
function target(document: unknown, ref: string): unknown {
  let tokens: string[];
  try {
    // as the model's resolver reads a ref: each token percent-decoded (a URI fragment), then unescaped (RFC 6901)
    tokens = ref
      .slice(1)
      .split('/')
      .filter((t) => t.length > 0)
      .map((t) => unescapePointerToken(decodeURIComponent(t)));
  } catch {
    return undefined;
  }
  let node: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObj(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * A ref into a component schema's keywords other than its properties (`#/components/schemas/X/definitions/Y`,
 * `.../allOf/1`, `.../items`: Codat, Vonage, EOS, SureVoIP): openapi-typescript indexes the type it made of `X` with
 * them (`components["schemas"]["X"]["definitions"]`), a member that type does not have, so the output did not compile
 * (D412 a ref into a component schema's keywords is copied in place). `X` itself and `.../properties/a/properties/b`,
 * which index the type's own members, stay refs.
 */
export function intoSchemaKeywords(ref: string): boolean {
  if (!ref.startsWith(COMPONENT_SCHEMA)) return false;
  const below = ref.slice(COMPONENT_SCHEMA.length).split('/').slice(1);
  return below.some((token, i) => i % 2 === 0 && token !== 'properties');
}

const inlinable = (ref: unknown): ref is string =>
  typeof ref === 'string' && ref.startsWith('#') && (!ref.startsWith(COMPONENT_SCHEMA) || intoSchemaKeywords(ref));

/** The document with such refs copied in place (itself when it has none), and where each was. */
export function inlineNonComponentSchemaRefs<T>(document: T): { document: T; inlined: InlinedRef[] } {
  const inlined: InlinedRef[] = [];
  const visit = (node: unknown, tokens: string[], expanding: readonly string[], depth: number): unknown => {
    if (depth > 512) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, i) => {
        const next = visit(item, [...tokens, String(i)], expanding, depth + 1);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      return copy ?? node;
    }
    if (!isObj(node)) return node;
    const ref = node['$ref'];
    if (inlinable(ref) && isSchemaPosition(tokens) && !expanding.includes(ref)) {
      const found = target(document, ref);
      if (isObj(found) || typeof found === 'boolean') {
        inlined.push({ pointer: `#${pointerOf(tokens)}`, ref });
        const { $ref: _ref, ...siblings } = node;
        const copy = isObj(found) ? { ...found, ...siblings } : found;
        // the copy sits where the ref was: its own subschemas are schema positions below it
        return visit(copy, tokens, [...expanding, ref], depth + 1);
      }
    }
    let copy: Record<string, unknown> | undefined;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const value = node[key];
      if (key.startsWith('x-') || key === 'example' || key === 'examples' || key === 'default' || key === 'enum' || key === 'const')
        continue;
      if (value === null || typeof value !== 'object') continue;
      const next = visit(value, [...tokens, key], expanding, depth + 1);
      if (next !== value) (copy ??= { ...node })[key] = next;
    }
    return copy ?? node;
  };
  return { document: visit(document, [], [], 0) as T, inlined };
}
