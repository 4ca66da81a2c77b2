/**
 * The runtime document (D158 runtime document without prose): the bundled OpenAPI document as `createApp` reads it, without what no runtime reads.
 *
 * Readers of the embedded document, and what each needs:
 * - response serializers (packages/server response-serializers.ts): paths → responses → content → schema, the
 *   components those reach (`$ref`), every validation keyword (fast-json-stringify picks oneOf/anyOf branches by them);
 * - response validation (response-validation.ts, express-openapi-validator): the same, plus parameters, request bodies,
 *   security schemes and `readOnly`/`writeOnly`;
 * - error shapes (error-shapes.ts): error response schemas, their `const`/`enum`, and the toolkit's own
 *   `x-paygate-error` extension;
 * - the reference gateway (idempotency.ts): `components.parameters`' schemas (pattern, length bounds).
 * None reads prose (`description`, `summary`, a schema's `title`, `$comment`), examples (`example`, `examples`,
 * `components.examples`), `externalDocs`, tags, or vendor extensions other than `x-paygate-*` and the validator's own
 * (see foreignExtension): those are dropped. Only
 * keys in keyword positions are: a property, parameter, header or schema named `description` is data and stays, and so
 * do values (`enum`, `const`, `default`, `discriminator`, security requirements, scopes) whatever their keys.
 * The docs site keeps the full document (docs-site.ts renders its own copy). A spec whose own tooling reads its examples
 * from the embedded document (Paygate's contract suite and benchmarks build requests from them) says so with
 * `info.x-embedded-examples: true`: `example`/`examples` are then kept (prose still goes).
 */
import { isObj, SUBSCHEMA_KEYWORDS } from '../util/json.js';

type Obj = Record<string, unknown>;

/** Annotations no runtime reads, in any object of the document. */
const PROSE = new Set(['description', 'summary', 'externalDocs', '$comment']);
/** Examples: dropped unless the spec keeps them (`info.x-embedded-examples: true`). */
const EXAMPLES = new Set(['example', 'examples']);
/** Schema annotations dropped besides PROSE. */
const SCHEMA_PROSE = new Set(['title']);

/** Keys of a non-schema object whose value is left exactly as is (values, not document structure). */
const DATA = new Set(['security', 'scopes', 'enum', 'default', 'const', 'mapping', 'required', 'value']);
/** Keys of a non-schema object whose value maps names (user data) to objects of the document. */
const NAME_MAPS = new Set([
  'paths',
  'webhooks',
  'responses',
  'content',
  'headers',
  'encoding',
  'links',
  'variables',
  'parameters',
  'requestBodies',
  'securitySchemes',
  'pathItems',
  'callbacks',
]);

/**
 * A vendor extension no runtime reads. Kept: the toolkit's own `x-paygate-*`, and those express-openapi-validator (the
 * response validator, and the request-validation oracle of the differential test) reads from the document:
 * `x-allow-unknown-query-parameters` (the request validators read it from the model too) and `x-eov-*`.
 */
const foreignExtension = (key: string) =>
  key.startsWith('x-') && !key.startsWith('x-paygate-') && !key.startsWith('x-eov-') && key !== 'x-allow-unknown-query-parameters';

function mapValues(map: Obj, f: (v: unknown) => unknown): Obj {
  return Object.fromEntries(Object.entries(map).map(([name, v]) => [name, f(v)]));
}

/** The runtime document of a bundled OpenAPI document (a new object; the input is not changed). */
export function runtimeDocument(document: Readonly<Record<string, unknown>>): Obj {
  const info = document.info;
  const keepExamples = isObj(info) && info['x-embedded-examples'] === true;
  const dropped = (key: string) => PROSE.has(key) || (!keepExamples && EXAMPLES.has(key)) || foreignExtension(key);

  const schema = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(schema);
    if (!isObj(node)) return node;
    const out: Obj = {};
    for (const [key, value] of Object.entries(node)) {
      if (dropped(key) || SCHEMA_PROSE.has(key)) continue;
      if (SUBSCHEMA_KEYWORDS.one.has(key) || SUBSCHEMA_KEYWORDS.list.has(key)) out[key] = schema(value);
      else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value)) out[key] = mapValues(value, schema);
      else out[key] = value;
    }
    return out;
  };

  // A document object (path item, operation, parameter, response, media type, components...): its keys are fields.
  const fields = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(fields);
    if (!isObj(node)) return node;
    const out: Obj = {};
    for (const [key, value] of Object.entries(node)) {
      if (dropped(key) || key === 'tags') continue;
      if (key === 'schema') out[key] = schema(value);
      else if (key === 'schemas' && isObj(value)) out[key] = mapValues(value, schema);
      else if (key === 'callbacks' && isObj(value)) out[key] = mapValues(value, (cb) => (isObj(cb) ? mapValues(cb, fields) : cb));
      else if (DATA.has(key) || EXAMPLES.has(key)) out[key] = value;
      else if (NAME_MAPS.has(key) && isObj(value)) out[key] = mapValues(value, fields);
      else out[key] = fields(value);
    }
    return out;
  };

  return fields(document) as Obj;
}
