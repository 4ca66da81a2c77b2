/**
 * A request body schema as requests are validated against it: a `readOnly` property is not required (decision D453:
 * readOnly properties not required in requests).
 *
 * OpenAPI 3.0.3 (Schema Object, `readOnly`): "If the property is marked as readOnly being true and is in the required
 * list, the required will take effect on the response only." 3.1 keeps the meaning (JSON Schema's `readOnly`: "the
 * value ... SHOULD be ignored if sent"). Vendors write one schema for both directions with the server's id in
 * `required` (Apideck's `CreditNote`: `required: [id, total_amount]`, `id` readOnly): a client creating one has no id
 * to send. A readOnly property a client sends anyway is accepted (SHOULD NOT, not MUST NOT). The property counts when
 * `readOnly: true` is written on it, beside a `$ref`, or at the root of the schema its `$ref` names (Apideck's
 * `id: {$ref: '#/components/schemas/Id'}`, `Id` readOnly).
 */
import { isObj, SUBSCHEMA_KEYWORDS } from '../util/json.js';

type Obj = Record<string, unknown>;

/** The schema a `$ref` names (undefined when it names nothing). */
export type ResolveRef = (ref: string) => unknown;

/**
 * `schema` (a copy where something changed) with every readOnly property left out of its object's `required`;
 * `resolve` reads the schema a property's `$ref` names.
 */
export function readOnlyNotRequired(schema: unknown, resolve: ResolveRef = () => undefined): unknown {
  const readOnly = (property: unknown, depth = 0): boolean => {
    if (!isObj(property) || depth > 16) return false;
    if (property['readOnly'] === true) return true;
    const ref = property['$ref'];
    return typeof ref === 'string' && readOnly(resolve(ref), depth + 1);
  };
  const recurse = (sub: unknown): unknown => readOnlyNotRequired(sub, resolve);
  if (Array.isArray(schema)) {
    const mapped = schema.map(recurse);
    return mapped.some((m, i) => m !== schema[i]) ? mapped : schema;
  }
  if (!isObj(schema)) return schema;
  let out: Obj | undefined;
  const set = (key: string, value: unknown) => {
    (out ??= { ...schema })[key] = value;
  };
  const properties = schema['properties'];
  const required = schema['required'];
  if (Array.isArray(required) && isObj(properties)) {
    const kept = required.filter((name) => !(typeof name === 'string' && readOnly(properties[name])));
    if (kept.length !== required.length) set('required', kept);
  }
  for (const [key, value] of Object.entries(schema)) {
    let next = value;
    if (SUBSCHEMA_KEYWORDS.one.has(key) || SUBSCHEMA_KEYWORDS.list.has(key)) next = recurse(value);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value)) {
      const entries = Object.entries(value).map(([name, sub]) => [name, recurse(sub)] as const);
      if (entries.some(([name, sub]) => sub !== value[name])) next = Object.fromEntries(entries);
    }
    if (next !== value) set(key, next);
  }
  if (out !== undefined && Array.isArray(out['required']) && out['required'].length === 0) delete out['required'];
  return out ?? schema;
}
