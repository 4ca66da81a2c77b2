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
 * cannot index, and a ref below a component schema's property (`.../properties/a/properties/b`, D473), which the
 * type layer indexes through a member that may be undefined or null. A ref that leads back into itself through such
 * copies (a recursive schema: Codat's `Report/definitions/reportComponent`, whose components are report components)
 * cannot be copied, since the copy would never end, and has no name the type layer can index: its target becomes a
 * component schema of its own, named after where it sits (`Report.definitions.reportComponent`), and every ref to it
 * points there (D472 a recursive schema under another is named by its pointer).
 */
import { pointerToken } from '../parse/refusal.js';
import { isObj, pointerOf, pointerTokens, unescapePointerToken } from '../util/json.js';
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
 * (D412 a ref into a component schema's keywords is copied in place). A ref below a property's property
 * (`.../properties/a/properties/b`) is copied too: the type layer writes it `X["a"]["b"]`, and `X["a"]` is undefined
 * when `a` is optional or null when it is nullable, which has no member `b` (Twine Health's
 * `CalendarEventResource/properties/relationships/properties/owner`; D473 a ref below a component's property is copied
 * in place). `X` itself and `X/properties/a`, a member of the type, stay refs.
 */
export function intoSchemaKeywords(ref: string): boolean {
  if (!ref.startsWith(COMPONENT_SCHEMA)) return false;
  const below = ref.slice(COMPONENT_SCHEMA.length).split('/').slice(1);
  return below.length > 2 || below.some((token, i) => i % 2 === 0 && token !== 'properties');
}

/**
 * Where a schema was given a component of its own because it refers back into itself (D472 a recursive schema under
 * another is named by its pointer).
 */
export interface NamedRef {
  ref: string;
  /** The component schema's name (`Report.definitions.reportComponent`). */
  name: string;
}

const inlinable = (ref: unknown): ref is string =>
  typeof ref === 'string' && ref.startsWith('#') && (!ref.startsWith(COMPONENT_SCHEMA) || intoSchemaKeywords(ref));

/**
 * The name a recursive schema's target is given (D472 a recursive schema under another is named by its pointer): its pointer below `#/components/schemas/` (or below the root
 * for a ref elsewhere), tokens joined with dots, every character a component name may not hold (OpenAPI:
 * `^[a-zA-Z0-9.\-_]+$`) written `_`; numbered when the document has that name already.
 */
function nameFor(ref: string, taken: ReadonlySet<string>): string {
  const tokens = pointerTokens(decodeRef(ref));
  const below = ref.startsWith(COMPONENT_SCHEMA) ? tokens.slice(2) : tokens;
  const base = below.map((t) => t.replace(/[^a-zA-Z0-9\-_]/g, '_')).join('.') || 'Schema';
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  return name;
}

/** A ref with its percent-encoding undone (a URI fragment), as `target` reads it; the ref itself when malformed. */
function decodeRef(ref: string): string {
  try {
    return decodeURIComponent(ref);
  } catch {
    return ref;
  }
}

/**
 * The document with such refs copied in place (itself when it has none), where each was, and the recursive schemas
 * given component names. Each pass copies what it can; a ref met again while its own copy is being made is recursive,
 * and the next pass starts over from the document with those targets added as component schemas (so the copies made
 * around them point at the names). Every pass names at least one more ref, so the passes end.
 */
export function inlineNonComponentSchemaRefs<T>(document: T): { document: T; inlined: InlinedRef[]; named: NamedRef[] } {
  const named: NamedRef[] = [];
  const names = new Map<string, string>();
  for (;;) {
    const named0 = named.length;
    const withNames = named0 === 0 ? document : hoisted(document, named);
    const recursive = new Set<string>();
    const result = inlinePass(withNames, names, recursive);
    const taken = new Set(Object.keys(schemasOf(withNames)));
    for (const ref of recursive) {
      const found = target(document, ref);
      if (!(isObj(found) || typeof found === 'boolean')) continue;
      const name = nameFor(ref, taken);
      taken.add(name);
      names.set(ref, name);
      named.push({ ref, name });
    }
    if (named.length === named0) return { document: result.document, inlined: result.inlined, named };
  }
}

/** The document's component schemas (empty when it has none). */
function schemasOf(document: unknown): Record<string, unknown> {
  const components = isObj(document) ? document['components'] : undefined;
  const schemas = isObj(components) ? components['schemas'] : undefined;
  return isObj(schemas) ? schemas : {};
}

/** The document with each named ref's target (as the document wrote it) added to its component schemas. */
function hoisted<T>(document: T, named: readonly NamedRef[]): T {
  const root = document as Record<string, unknown>;
  const components = isObj(root['components']) ? root['components'] : {};
  const schemas: Record<string, unknown> = { ...schemasOf(document) };
  for (const { ref, name } of named) schemas[name] = target(document, ref);
  return { ...root, components: { ...components, schemas } } as T;
}

function inlinePass<T>(document: T, names: ReadonlyMap<string, string>, recursive: Set<string>): { document: T; inlined: InlinedRef[] } {
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
    const name = typeof ref === 'string' ? names.get(ref) : undefined;
    if (name !== undefined && isSchemaPosition(tokens)) {
      // D472: a recursive schema's ref points at the component it was given (siblings kept)
      return visit({ ...node, $ref: `${COMPONENT_SCHEMA}${pointerToken(name)}` }, tokens, expanding, depth + 1);
    }
    if (inlinable(ref) && isSchemaPosition(tokens) && expanding.includes(ref)) recursive.add(ref);
    else if (inlinable(ref) && isSchemaPosition(tokens)) {
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
      // values, not schemas; but a property named `default` (Codat's `button.default`) is a schema (D473 a ref below
      // a component's property is copied in place)
      const literal =
        key.startsWith('x-') || key === 'example' || key === 'examples' || key === 'default' || key === 'enum' || key === 'const';
      if (literal && !isSchemaPosition([...tokens, key])) continue;
      if (value === null || typeof value !== 'object') continue;
      const next = visit(value, [...tokens, key], expanding, depth + 1);
      if (next !== value) (copy ??= { ...node })[key] = next;
    }
    return copy ?? node;
  };
  return { document: visit(document, [], [], 0) as T, inlined };
}
