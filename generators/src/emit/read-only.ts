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
import { isObj } from '../util/json.js';
import { rewriteSchemas } from './schema-rewrite.js';

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
  return rewriteSchemas(schema, (node) => {
    const { properties, required } = node;
    if (!Array.isArray(required) || !isObj(properties)) return undefined;
    const kept = required.filter((name) => !(typeof name === 'string' && readOnly(properties[name])));
    return kept.length === required.length ? undefined : { required: kept.length === 0 ? undefined : kept };
  });
}
