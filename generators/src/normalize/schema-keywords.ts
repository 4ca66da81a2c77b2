/**
 * Schema keywords whose value has the wrong JSON type, left out of the document with a warning (decision D430).
 *
 * api.video's spec writes `"pattern": 0`; Redocly's `struct` rule calls it "Expected type `string` but got `integer`",
 * Ajv refuses to compile it, and openapi-typescript generates from the document all the same. A keyword of this kind
 * either constrains a value (`pattern`, `minLength`, `maximum`, `uniqueItems`...) or annotates it (`title`,
 * `examples`...): written with the wrong type it carries no meaning a validator could apply. As D206 does for a
 * `pattern` that is no regular expression, it is left out (values are not checked against it) and generation warns with
 * its pointer and the fix, rather than refusing the whole document. Keywords that shape the schema (`type`, `items`,
 * `allOf`, `required`, `enum`...) are not among them: leaving one out would change what the schema accepts beyond the
 * one constraint, so a wrong one is still refused by the lint.
 */
import { pointerToken } from '../parse/refusal.js';
import { isObj, SUBSCHEMA_KEYWORDS } from '../util/json.js';
import { stringDefaultRefusal } from './string-default.js';

type JsonType = 'string' | 'number' | 'boolean' | 'array';

/** The keywords this applies to and the JSON type each must have (JSON Schema 2020-12 and OpenAPI 3.0's subset). */
export const SIMPLE_SCHEMA_KEYWORDS: Readonly<Record<string, JsonType>> = {
  pattern: 'string',
  format: 'string',
  title: 'string',
  description: 'string',
  $comment: 'string',
  minLength: 'number',
  maxLength: 'number',
  minItems: 'number',
  maxItems: 'number',
  minProperties: 'number',
  maxProperties: 'number',
  minContains: 'number',
  maxContains: 'number',
  minimum: 'number',
  maximum: 'number',
  multipleOf: 'number',
  uniqueItems: 'boolean',
  readOnly: 'boolean',
  writeOnly: 'boolean',
  deprecated: 'boolean',
  nullable: 'boolean',
  examples: 'array',
};

/**
 * Keywords whose value is one schema (a key right below them is a keyword of that schema): JSON Schema's, from the one
 * keyword table (util/json.ts), plus OpenAPI's `schema` and `contentSchema`.
 */
const ONE_SCHEMA: ReadonlySet<string> = new Set([...SUBSCHEMA_KEYWORDS.one, 'schema', 'contentSchema']);
/** Keywords (and the components map) whose value is a list or map of schemas: two tokens below them is a schema. */
const MANY_SCHEMAS: ReadonlySet<string> = new Set([...SUBSCHEMA_KEYWORDS.list, ...SUBSCHEMA_KEYWORDS.map, 'schemas']);

/** Whether the node at these tokens (from the root, unescaped) is a Schema Object, read from where it sits. */
export function isSchemaPosition(tokens: readonly string[]): boolean {
  const last = tokens[tokens.length - 1];
  const second = tokens[tokens.length - 2];
  // a member of a map or list of schemas is one whatever its name (a property called `items` is a schema)
  return (second !== undefined && MANY_SCHEMAS.has(second)) || (last !== undefined && ONE_SCHEMA.has(last));
}

/** Whether a value has the JSON type a keyword asks for. */
function hasType(value: unknown, type: JsonType): boolean {
  if (type === 'array') return Array.isArray(value);
  return typeof value === type && !(type === 'number' && !Number.isFinite(value as number));
}

/** The schema's `type` as a list (empty when it declares none). */
function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * Whether a `default` has a JSON type the schema's own `type` refuses (Exhibit Day's `{type: number, default: 'false'}`,
 * BC's `{type: array, default: ''}`): request validators fill a missing value with the default and then refuse it, so
 * a request that leaves the value out, as the spec allows, was answered 400. `null` is allowed by `nullable` (3.0).
 */
function defaultOutsideType(schema: Record<string, unknown>, value: unknown): boolean {
  const types = typesOf(schema);
  // a null default beside a 3.0 `nullable` without `type` (`{allOf: [{$ref: CountryCode}], nullable: true, default:
  // null}`): `nullable` takes effect only with a `type`, the validators read none, and the composition's members refuse
  // null (D471 a default its string keywords refuse left out)
  if (value === null && types.length === 0)
    return ['allOf', 'oneOf', 'anyOf', '$ref'].some((k) => schema[k] !== undefined) && !acceptsNullMember(schema);
  if (types.length === 0) return false;
  const fits = (t: string): boolean => {
    switch (t) {
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number';
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isObj(value);
      case 'null':
        return value === null;
      default:
        return true;
    }
  };
  if (value === null && schema['nullable'] === true) return false;
  if (!types.some(fits)) return true;
  // an array default whose items its `items` schema refuses by type (D471 a default its string keywords refuse left
  // out: `default: ["balances"]` for an array of arrays)
  const items = schema['items'];
  if (Array.isArray(value) && isObj(items) && items['$ref'] === undefined && value.some((item) => defaultOutsideType(items, item)))
    return true;
  // a scalar default outside the schema's own enum (figshare's `order`: `default: created_date`, not among its values)
  const values = schema['enum'];
  return Array.isArray(values) && (value === null || typeof value !== 'object') && !values.includes(value);
}

/** Whether an inline member of the schema's composition says null is allowed (a `type` with null, or an empty schema). */
function acceptsNullMember(schema: Record<string, unknown>): boolean {
  return ['allOf', 'oneOf', 'anyOf'].some(
    (k) =>
      Array.isArray(schema[k]) &&
      (schema[k] as unknown[]).some(
        (m) =>
          isObj(m) && m['$ref'] === undefined && (Object.keys(m).length === 0 || typesOf(m).includes('null') || m['nullable'] === true),
      ),
  );
}

/** A keyword left out of the document (D430 wrongly typed value keywords and refused defaults left out with a warning). */
export interface DroppedKeyword {
  pointer: string;
  keyword: string;
  problem: string;
  fix: string;
}

const describe = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `the ${typeof value} ${JSON.stringify(value)}`;

/**
 * The document without the wrongly typed keywords of its schemas (listed in `dropped`); the document itself when it
 * has none. Schemas are recognised by where they sit (`components/schemas/<name>`, `.../schema`, `.../properties/<name>`,
 * `.../items`...), so a field of another object that shares a keyword's name (an Info Object's `title`) is not touched;
 * extensions (`x-...`) and example data are not read.
 */
export function dropMistypedKeywords<T>(document: T, base = '#'): { document: T; dropped: DroppedKeyword[] } {
  const dropped: DroppedKeyword[] = [];
  const visit = (node: unknown, tokens: string[], depth: number): unknown => {
    if (depth > 512) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, i) => {
        const next = visit(item, [...tokens, String(i)], depth + 1);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      return copy ?? node;
    }
    if (!isObj(node)) return node;
    const schema = isSchemaPosition(tokens);
    let copy: Record<string, unknown> | undefined;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const value = node[key];
      const type = schema ? SIMPLE_SCHEMA_KEYWORDS[key] : undefined;
      if (type !== undefined && value !== undefined && !hasType(value, type)) {
        const pointer = [base, ...tokens, key].map((t, i) => (i === 0 ? t : pointerToken(t))).join('/');
        dropped.push({
          pointer,
          keyword: key,
          problem: `\`${key}\` is ${describe(value)}, where JSON Schema asks for ${type === 'array' ? 'an array' : `a ${type}`}. It is left out: values are not checked against it (D430).`,
          fix: `write \`${key}\` as ${type === 'array' ? 'an array' : `a ${type}`}, or remove it.`,
        });
        delete (copy ??= { ...node })[key];
        continue;
      }
      if (schema && key === 'default' && defaultOutsideType(node, value)) {
        const pointer = [base, ...tokens, key].map((t, i) => (i === 0 ? t : pointerToken(t))).join('/');
        dropped.push({
          pointer,
          keyword: key,
          problem: `\`default\` is ${describe(value)}, which its schema refuses (${typesOf(node).length === 0 ? '`nullable` without `type` allows no null; its members refuse it' : `\`type\` ${typesOf(node).join(', ')}${Array.isArray(node['enum']) ? ', or its `enum`' : ''}`}). It is left out: a request without the value is not given it (D430).`,
          fix: `write a \`default\` of the declared type, or remove it.`,
        });
        delete (copy ??= { ...node })[key];
        continue;
      }
      const refusal = schema && key === 'default' ? stringDefaultRefusal(node, value) : undefined;
      if (refusal !== undefined) {
        const pointer = [base, ...tokens, key].map((t, i) => (i === 0 ? t : pointerToken(t))).join('/');
        dropped.push({
          pointer,
          keyword: key,
          problem: `\`default\` is ${describe(value)}, which its schema refuses (${refusal}). It is left out: a request without the value is not given it (D471).`,
          fix: `write a \`default\` its schema accepts, or remove it.`,
        });
        delete (copy ??= { ...node })[key];
        continue;
      }
      if (key.startsWith('x-') || key === 'example' || key === 'examples' || key === 'default' || key === 'enum' || key === 'const')
        continue;
      if (value === null || typeof value !== 'object') continue;
      const next = visit(value, [...tokens, key], depth + 1);
      if (next !== value) (copy ??= { ...node })[key] = next;
    }
    return copy ?? node;
  };
  return { document: visit(document, [], 0) as T, dropped };
}
